"""Draw the peers' scaling sweep and print the ratio table, from ``bench_peers.py --json``.

    .venv/bin/python benchmarks/bench_peers.py --json /tmp/peers.json
    .venv/bin/python benchmarks/plot_ratios.py /tmp/peers.json [--out docs/pictures]

Writes ``benchmarks_rows.png`` (CPU time against rows) and ``benchmarks_columns.png``
(against columns), one panel per task, treelearn and each peer on log-log axes
(matplotlib, 150 dpi); prints, as Markdown, every ``treelearn / <peer>`` ratio row of the
run (the README's table is cut from it).
"""

from __future__ import annotations

import argparse
import json
import os
from collections import defaultdict


def scaling_points(rows: list[dict]) -> dict:
    """``{task: {library: [(rows, columns, seconds), ...]}}`` of the sweep's rows."""
    out: dict = defaultdict(lambda: defaultdict(list))
    for r in rows:
        if "task" in r and isinstance(r.get("value"), (int, float)):
            out[r["task"]][r["library"]].append((r["rows"], r["columns"], float(r["value"])))
    return out


def sweep(points: list, axis: str) -> list:
    """The points along one axis: those sharing the most common value of the other axis."""
    other = 1 if axis == "rows" else 0
    values = [p[other] for p in points]
    fixed = max(set(values), key=values.count)
    return sorted(p for p in points if p[other] == fixed)


def draw(points: dict, axis: str, path: str) -> None:
    """One panel per task: CPU seconds against ``axis`` ("rows" or "columns"), log-log."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FormatStrFormatter, LogLocator, NullFormatter

    tasks = sorted(points)
    fig, axes = plt.subplots(1, len(tasks), figsize=(5.2 * len(tasks), 4.0), squeeze=False)
    at = 0 if axis == "rows" else 1
    for ax, task in zip(axes[0], tasks):
        fixed = ""
        ordered = sorted(points[task].items(), key=lambda kv: (kv[0] != "treelearn", kv[0]))
        for colour, (library, pts) in enumerate(ordered):
            line = sweep(pts, axis)
            fixed = f"{line[0][1 - at]:,} {'columns' if axis == 'rows' else 'rows'}"
            style = {"lw": 2.4 if library == "treelearn" else 1.6, "color": f"C{colour}"}
            ax.plot([p[at] for p in line], [p[2] * 1e3 for p in line], "o-", label=library, **style)
        ax.set_xscale("log")
        ax.set_yscale("log")
        # the sizes measured on x, 1-2-5 steps on y, in plain numbers (log axes label decades only)
        xs = sorted({p[at] for pts in points[task].values() for p in sweep(pts, axis)})
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_xticks(xs, labels=[f"{x:,}" for x in xs], fontsize=8)
        ax.yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
        ax.yaxis.set_major_formatter(FormatStrFormatter("%g"))
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.set_xlabel(axis)
        ax.set_ylabel("CPU time (ms, best of 3, one BLAS thread)")
        ax.set_title(f"{task}\n({fixed})", fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=9)
    fig.tight_layout()
    tmp = path + ".tmp.png"
    fig.savefig(tmp, dpi=150)
    plt.close(fig)
    os.replace(tmp, path)  # atomic: a reader never sees half a picture


def ratio_table(rows: list[dict]) -> str:
    """Markdown: every ``treelearn / ...`` ratio of the run, with its target and whether met."""
    lines = ["| task | treelearn / peer | ratio | target | met |", "|---|---|---|---|---|"]
    for r in rows:
        if r.get("unit") == "x" and str(r.get("metric", "")).startswith("treelearn /"):
            met = {True: "yes", False: "no", None: ""}[r.get("ok")]
            value = r["value"]
            ratio = f"{value:.2f}x" if isinstance(value, (int, float)) else str(value)
            lines.append(f"| {r['case']} | {r['metric'][12:]} | {ratio} | {r['target']} | {met} |")
    return "\n".join(lines)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("results", help="the JSON file bench_peers.py --json wrote")
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--out", default=os.path.join(here, "..", "docs", "pictures"))
    args = ap.parse_args(argv)
    with open(args.results) as fh:
        rows = json.load(fh)
    points = scaling_points(rows)
    if points:
        for axis in ("rows", "columns"):
            path = os.path.join(args.out, f"benchmarks_{axis}.png")
            draw(points, axis, path)
            print("wrote", os.path.normpath(path))
    else:
        print("no scaling rows in the results (run bench_peers.py with the scaling section)")
    print(ratio_table(rows))


if __name__ == "__main__":
    main()
