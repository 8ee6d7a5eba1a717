"""Run every benchmark script in this folder and print one table.

    .venv/bin/python benchmarks/run_all.py [--debd ../shared/data/debd] [--quick] [--only NAME ...]
                                           [--cache-dir DIR] [--json OUT.json] [--markdown OUT.md]

Each ``bench_*.py`` here runs in its own process (so one's memory does not
weigh on the next), with the options it understands, read from its ``--help``:
``--json`` (always: that is how its rows come back), ``--quick``, ``--cache-dir``,
and the DEBD path (``--debd PATH``, or a positional path for a script whose name
says debd). Its own output streams to stderr as it runs; the collected rows are
printed at the end as one table (stdout). A script that fails, or writes no
rows, gets a row saying so; the exit status is 1 if any script failed or any
row missed its target.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _common import DEFAULT_CACHE, machine, pin_blas, print_table, row  # noqa: E402


def scripts(only: list[str] | None) -> list[Path]:
    found = sorted(HERE.glob("bench_*.py"))
    if only:
        found = [p for p in found if any(o in p.stem for o in only)]
    return found


def options_of(script: Path) -> str:
    out = subprocess.run(
        [sys.executable, str(script), "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return out.stdout + out.stderr


def command_for(script: Path, args, json_path: str) -> list[str]:
    help_text = options_of(script)
    cmd = [sys.executable, str(script)]
    if "--json" in help_text:
        cmd += ["--json", json_path]
    if args.quick and "--quick" in help_text:
        cmd.append("--quick")
    if "--cache-dir" in help_text:
        cmd += ["--cache-dir", args.cache_dir]
    if args.debd:
        if "--debd" in help_text:
            cmd += ["--debd", args.debd]
        elif "debd" in script.stem and re.search(
            r"usage:.*\s\[?path\]?", help_text, re.IGNORECASE | re.DOTALL
        ):
            cmd.insert(2, args.debd)  # a positional path
    return cmd


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--debd", default=None, help="folder of the DEBD datasets (e.g. ../shared/data/debd)"
    )
    ap.add_argument("--quick", action="store_true", help="pass --quick to the scripts that have it")
    ap.add_argument(
        "--only", nargs="+", default=None, help="run only scripts whose name contains one of these"
    )
    ap.add_argument(
        "--cache-dir", default=DEFAULT_CACHE, help="sample cache for the scripts that take one"
    )
    ap.add_argument("--json", default=None, help="write all rows to this JSON file")
    ap.add_argument("--markdown", default=None, help="write the final table to this Markdown file")
    args = ap.parse_args(argv)

    print(pin_blas(1), file=sys.stderr)
    print("machine:", machine(), file=sys.stderr)
    all_rows: list[dict] = []
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        for script in scripts(args.only):
            json_path = os.path.join(tmp, script.stem + ".json")
            cmd = command_for(script, args, json_path)
            shown = " ".join([os.path.relpath(cmd[1])] + cmd[2:])
            print(f"\n=== {shown}", file=sys.stderr, flush=True)
            t = time.perf_counter()
            # the script's own output goes to stderr as it runs; rows come back as JSON
            proc = subprocess.run(cmd, stdout=sys.stderr, stderr=sys.stderr, check=False)
            seconds = time.perf_counter() - t
            rows = []
            if os.path.exists(json_path):
                with open(json_path) as fh:
                    rows = json.load(fh)
            if proc.returncode:
                failed = True
            if proc.returncode or not rows:
                rows.append(
                    row(
                        script.stem.removeprefix("bench_"),
                        "(script)",
                        "exit status",
                        proc.returncode,
                        ok=proc.returncode == 0,
                        note="no rows written" if not rows else "see its output above",
                    )
                )
            rows.append(
                row(script.stem.removeprefix("bench_"), "(script)", "wall time", seconds, "s")
            )
            all_rows.extend(rows)
    print(f"\nmachine: {machine()}; load average at the end: {os.getloadavg()[0]:.2f}")
    print_table(all_rows)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(all_rows, fh, indent=1, default=str)
    if args.markdown:
        with open(args.markdown, "w") as fh:
            print_table(all_rows, file=fh)
    missed = [r for r in all_rows if r.get("ok") is False]
    return 1 if failed or missed else 0


if __name__ == "__main__":
    sys.exit(main())
