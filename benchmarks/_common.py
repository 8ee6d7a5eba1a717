"""Shared helpers for the benchmark scripts: BLAS pinning, timing, peak memory, data cache.

Every ``bench_*.py`` script in this folder can be run on its own; with ``--json PATH``
it also writes its results as a list of rows (see :func:`row`), which
``benchmarks/run_all.py`` gathers into one table.
"""

from __future__ import annotations

import gc
import json
import os
import platform
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

DEFAULT_CACHE = os.environ.get("TREELEARN_BENCH_CACHE", "/tmp/treelearn-bench")
ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run from a checkout without installing
    sys.path.insert(0, str(ROOT))

warnings.filterwarnings("ignore", category=FutureWarning)


def pin_blas(threads: int = 1) -> str:
    """Limit BLAS (and OpenMP) to ``threads`` threads for the whole process; say what was done.

    Two-thread OpenBLAS stalls at random on the benchmark machines, and one
    thread makes the timings comparable between libraries.
    """
    try:
        from threadpoolctl import threadpool_info, threadpool_limits
    except ImportError:  # pragma: no cover - threadpoolctl is in the bench/test extras
        os.environ.setdefault("OPENBLAS_NUM_THREADS", str(threads))
        return f"threadpoolctl not installed; set OPENBLAS_NUM_THREADS={threads} (effective only before numpy loads)"
    global _LIMITER  # keep the limiter alive for the life of the process
    _LIMITER = threadpool_limits(limits=threads)
    pools = [
        f"{p['internal_api']} {p.get('version') or ''} {p.get('architecture') or ''}".strip()
        + f" -> {p['num_threads']} thread(s)"
        for p in threadpool_info()
    ]
    return f"threadpoolctl.threadpool_limits({threads}) applied: " + "; ".join(
        pools or ["no pools"]
    )


def machine() -> str:
    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    coretype = os.environ.get("OPENBLAS_CORETYPE", "<unset>")
    return (
        f"{cpu}, {os.cpu_count()} CPUs, Python {platform.python_version()}, numpy {np.__version__}, "
        f"OPENBLAS_CORETYPE={coretype}"
    )


def timeit(fn: Callable[[], Any], repeat: int = 5, warmup: int = 1) -> dict:
    """Wall-clock seconds of ``fn()``: best and median of ``repeat`` runs after ``warmup``."""
    for _ in range(warmup):
        fn()
    times = []
    result = None
    for _ in range(repeat):
        gc.collect()
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return {
        "best": min(times),
        "median": statistics.median(times),
        "runs": len(times),
        "result": result,
    }


def _status_kib() -> dict:
    out = {}
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(("VmRSS", "VmHWM")):
                key, value = line.split(":", 1)
                out[key] = int(value.split()[0])
    return out


def peak_rss_increase(fn: Callable[[], Any]) -> dict:
    """Run ``fn()`` and return the rise of the process's peak resident set size over its RSS before.

    Linux only: resets the kernel's high-water mark (``/proc/self/clear_refs`` = 5)
    just before the call, then reads ``VmHWM`` after it. This counts every
    allocation (numpy, pandas, pyarrow's pool, Python objects) that was resident
    at the worst moment of the call, and nothing allocated before it. Pages
    freed but not returned to the OS before the call are reused silently, so
    the figure can only under-count by what the allocator had cached.
    """
    import tracemalloc

    gc.collect()
    before = _status_kib()
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")
    reset = _status_kib()
    tracemalloc.start()
    t = time.perf_counter()
    result = fn()
    seconds = time.perf_counter() - t
    _, traced_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    after = _status_kib()
    return {
        "rss_before": before["VmRSS"] * 1024,
        "hwm_reset_ok": reset["VmHWM"] <= reset["VmRSS"] + 1024,
        "peak_rss": after["VmHWM"] * 1024,
        "peak_increase": (after["VmHWM"] - before["VmRSS"]) * 1024,
        "tracemalloc_peak": traced_peak,
        "seconds": seconds,
        "result": result,
    }


def measure_in_child(script: str, *args: str) -> dict:
    """Run ``python script *args`` in a fresh process; its last stdout line is a JSON dict.

    Memory is measured in a child so that nothing the parent allocated earlier
    (data, caches, other benchmarks) is counted.
    """
    import subprocess

    out = subprocess.run(
        [sys.executable, os.path.abspath(script), *args],
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode:
        raise RuntimeError(f"memory child failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def row(
    benchmark: str,
    case: str,
    metric: str,
    value: Any,
    unit: str = "",
    target: str = "",
    ok: bool | None = None,
    note: str = "",
) -> dict:
    """One result row: what ``run_all.py`` prints, one line each."""
    if isinstance(value, (np.floating, np.integer)):
        value = value.item()
    return {
        "benchmark": benchmark,
        "case": case,
        "metric": metric,
        "value": value,
        "unit": unit,
        "target": target,
        "ok": ok,
        "note": note,
    }


def fmt(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return {True: "yes", False: "NO", None: ""}[value]
    if isinstance(value, float):
        if value == 0:
            return "0"
        if abs(value) >= 1000:
            return f"{value:,.0f}"
        if abs(value) >= 10:
            return f"{value:.1f}"
        if abs(value) >= 0.1:
            return f"{value:.3f}"
        return f"{value:.4f}"
    return str(value)


def print_table(rows: list[dict], file=None) -> None:
    """Rows as an aligned plain-text table (also valid Markdown)."""
    file = file or sys.stdout
    headers = ["benchmark", "case", "metric", "value", "unit", "target", "met", "note"]
    cells = [
        [
            r.get("benchmark", ""),
            r.get("case", ""),
            r.get("metric", ""),
            fmt(r.get("value")),
            r.get("unit", ""),
            r.get("target", ""),
            fmt(r.get("ok")),
            r.get("note", ""),
        ]
        for r in rows
    ]
    widths = [
        max(len(h), *(len(str(c[i])) for c in cells)) if cells else len(h)
        for i, h in enumerate(headers)
    ]

    def line(cs: list) -> str:
        return "| " + " | ".join(str(c).ljust(w) for c, w in zip(cs, widths)) + " |"

    print(line(headers), file=file)
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|", file=file)
    for c in cells:
        print(line(c), file=file)
    file.flush()


def write_json(rows: list[dict], path: str | None) -> None:
    if path:
        with open(path, "w") as fh:
            json.dump(rows, fh, indent=1, default=str)


def alarm_sample(n: int, cache_dir: str = DEFAULT_CACHE, seed: int = 0):
    """``n`` rows forward-sampled from pgmpy's ``alarm`` network, cached as a pickle in ``cache_dir``."""
    import pandas as pd

    path = Path(cache_dir) / f"alarm_{n}_seed{seed}.pkl"
    if path.exists():
        return pd.read_pickle(path)
    from pgmpy.sampling import BayesianModelSampling
    from pgmpy.utils import get_example_model

    path.parent.mkdir(parents=True, exist_ok=True)
    t = time.perf_counter()
    df = BayesianModelSampling(get_example_model("alarm")).forward_sample(
        size=n, seed=seed, show_progress=False
    )
    print(
        f"  sampled {n:,} alarm rows in {time.perf_counter() - t:.1f} s -> {path}", file=sys.stderr
    )
    tmp = path.with_suffix(".tmp")
    df.to_pickle(tmp)
    os.replace(tmp, path)
    return df
