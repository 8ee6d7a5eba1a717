"""Memory of reading a file whole (pandas), per byte on disk and per cell: the factors
:func:`treelearn.sources._files.read_memory_estimate` uses to refuse a whole read that
would not fit (issue 39, "check resource limits before allocating").

Each file is read in a fresh child process (``pd.read_csv(path, low_memory=False)``, as
``read_whole`` reads it; ``pd.read_parquet``); the peak resident set size it adds (the
child's ``VmHWM`` after the read minus before, pandas imported and warmed on a tiny
file first) is divided by the file's size on disk and by its cells. Real tables are the
repository's (alarm, asia, datasets/real) and DEBD msnbc (/work/shared/data/debd), each
repeated to about ``--mb`` MB so that the fixed costs do not count.

    python benchmarks/bench_read_memory.py [--mb 40] [--out /tmp/readers_mem]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]

# VmHWM, not ru_maxrss: Linux carries the parent's ru_maxrss into an exec'd child
CHILD = r"""
import sys, json, pandas as pd
def peak():
    line = next(l for l in open("/proc/self/status") if l.startswith("VmHWM"))
    return int(line.split()[1]) * 1024
path, kind = sys.argv[1], sys.argv[2]
pd.read_csv(sys.argv[3])  # warm the parser
before = peak()
frame = pd.read_csv(path, low_memory=False) if kind == "csv" else pd.read_parquet(path)
after = peak()
print(json.dumps({"rise": after - before, "rows": len(frame),
                  "cols": frame.shape[1], "frame": int(frame.memory_usage(deep=False).sum())}))
"""


def sources() -> dict[str, pd.DataFrame]:
    out = {
        "alarm": pd.read_csv(ROOT / "datasets/alarm.csv"),
        "asia": pd.read_csv(ROOT / "datasets/asia.csv"),
    }
    for name in ("hmda", "titanic", "boston", "cps1985", "penguins"):
        out[name] = pd.read_csv(ROOT / f"datasets/real/{name}.csv")
    msnbc = Path("/work/shared/data/debd/msnbc.ts.data.gz")
    if msnbc.exists():
        with gzip.open(msnbc, "rt") as f:
            out["msnbc"] = pd.read_csv(f, header=None).add_prefix("v")
    return out


def measure(path: Path, kind: str, tiny: Path) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), kind, str(tiny)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=float, default=40)
    parser.add_argument("--out", default="/tmp/readers_mem")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    tiny = out / "tiny.csv"
    pd.DataFrame({"a": [1, 2]}).to_csv(tiny, index=False)
    print(f"load average {os.getloadavg()}")
    print(f"{'table':10} {'kind':8} {'MB':>7} {'cells':>11} {'rise/byte':>9} {'rise/cell':>9}")
    for name, df in sources().items():
        one = len(df.to_csv(index=False).encode())
        big = pd.concat([df] * max(1, round(args.mb * 2**20 / one)), ignore_index=True)
        csv, parquet = out / f"{name}.csv", out / f"{name}.parquet"
        big.to_csv(csv, index=False)
        big.to_parquet(parquet, index=False)
        for path, kind in ((csv, "csv"), (parquet, "parquet")):
            got = measure(path, kind, tiny)
            size, cells = path.stat().st_size, got["rows"] * got["cols"]
            print(
                f"{name:10} {kind:8} {size / 2**20:7.1f} {cells:11,} "
                f"{got['rise'] / size:9.2f} {got['rise'] / cells:9.1f}"
            )


if __name__ == "__main__":
    main()
