"""Density estimation on the twenty standard binary datasets (DEBD).

    .venv/bin/python benchmarks/bench_debd.py [PATH_TO_DEBD] [--only nltcs,plants] [--json OUT]

For each dataset: ``tl.chow_liu(train, alpha=1.0, mi_alpha=1.0)`` on
``NAME.ts.data.gz`` (every variable given the states ``[0, 1]``, so a value
absent from the training rows still gets smoothed mass), then the average
test log-likelihood per example (nats) on ``NAME.test.data.gz``, compared with
the reference single-tree figure (the table in ``shared/data/README.md``,
copied below). ``learn s`` is the wall time of ``chow_liu`` alone (reading the
files and scoring are not timed). BLAS is pinned to one thread.

Prints a Markdown table; exit status 1 when a dataset misses its reference by
more than ``TOLERANCE``. ``main()`` returns the rows for ``run_all.py``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import ROOT, machine, pin_blas, row, write_json

import treelearn as tl

BENCH = "debd"
DEFAULT_PATH = str(ROOT.parent / "shared" / "data" / "debd")

TOLERANCE = 0.001

#: dataset -> (variables, train rows, test rows, reference test LL per example)
REFERENCE = {
    "nltcs": (16, 16181, 3236, -6.759),
    "msnbc": (17, 291326, 58265, -6.540),
    "kdd": (64, 180092, 34955, -2.295),
    "plants": (69, 17412, 3482, -16.524),
    "baudio": (100, 15000, 3000, -44.375),
    "jester": (100, 9000, 4116, -58.227),
    "bnetflix": (100, 15000, 3000, -60.250),
    "accidents": (111, 12758, 2551, -33.188),
    "tretail": (135, 22041, 4408, -10.947),
    "pumsb_star": (163, 12262, 2452, -30.807),
    "dna": (180, 1600, 1186, -87.735),
    "kosarek": (190, 33375, 6675, -11.490),
    "msweb": (294, 29441, 5000, -10.193),
    "book": (500, 8700, 1739, -37.843),
    "tmovie": (500, 4524, 591, -64.791),
    "cwebkb": (839, 2803, 838, -163.471),
    "cr52": (889, 6532, 1540, -94.435),
    "c20ng": (910, 11293, 3764, -164.117),
    "bbc": (1058, 1670, 330, -261.856),
    "ad": (1556, 2461, 491, -16.918),
}


def load(folder: str, name: str, part: str) -> pd.DataFrame:
    return pd.read_csv(os.path.join(folder, f"{name}.{part}.data.gz"), header=None, dtype=np.int8)


def run_one(folder: str, name: str) -> dict:
    train, test = load(folder, name, "ts"), load(folder, name, "test")
    states = {c: [0, 1] for c in train.columns}
    start = time.perf_counter()
    model = tl.chow_liu(train, alpha=1.0, mi_alpha=1.0, states=states)
    seconds = time.perf_counter() - start
    ll = model.log_likelihood(test) / len(test)
    return {"vars": train.shape[1], "train": len(train), "test": len(test), "ll": ll, "s": seconds}


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "path",
        nargs="?",
        default=DEFAULT_PATH,
        help="folder holding NAME.ts.data.gz and NAME.test.data.gz (default %(default)s)",
    )
    parser.add_argument("--only", help="comma-separated dataset names (default: all twenty)")
    parser.add_argument("--json", default=None, help="also write the result rows to this JSON file")
    args = parser.parse_args(argv)
    names = args.only.split(",") if args.only else list(REFERENCE)
    unknown = [n for n in names if n not in REFERENCE]
    if unknown:
        parser.error(f"unknown dataset(s) {unknown}; choose from {list(REFERENCE)}")
    if not os.path.isdir(args.path):
        parser.error(f"no such folder {args.path!r}: give the path of the debd datasets")
    print(pin_blas(1))
    print("machine:", machine())
    print(
        f"treelearn {tl.__version__}, pandas {pd.__version__}; "
        f"tl.chow_liu(train, alpha=1.0, mi_alpha=1.0, states=[0, 1] for every column)"
    )
    print()
    print("| dataset | vars | train rows | test rows | test LL | reference | diff | learn s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    rows, failures = [], []
    for name in names:
        r = run_one(args.path, name)
        ref = REFERENCE[name][3]
        diff = r["ll"] - ref
        ok = bool(abs(diff) <= TOLERANCE)
        if not ok:
            failures.append(name)
        print(
            f"| {name} | {r['vars']} | {r['train']} | {r['test']} | {r['ll']:.3f} | "
            f"{ref:.3f} | {diff:+.4f}{'' if ok else ' (!)'} | {r['s']:.2f} |",
            flush=True,
        )
        case = f"{name} d={r['vars']} n={r['train']}"
        rows.append(
            row(
                BENCH,
                case,
                "test LL per example",
                r["ll"],
                "nats",
                f"{ref:.3f} +- {TOLERANCE}",
                ok,
                note=f"diff {diff:+.4f}",
            )
        )
        rows.append(row(BENCH, case, "chow_liu seconds", r["s"], "s", note="one run"))
    print()
    print(
        f"all {len(names)} within {TOLERANCE} nats of the reference"
        if not failures
        else f"outside {TOLERANCE} nats: {', '.join(failures)}"
    )
    write_json(rows, args.json)
    return rows


if __name__ == "__main__":
    sys.exit(1 if any(r["ok"] is False for r in main()) else 0)
