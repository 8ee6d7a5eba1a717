"""The explorer page: how long ``to_html`` takes to build the page, and how large it is.

    .venv/bin/python benchmarks/bench_explorer.py [--quick] [--json OUT]

Cases (CPU seconds, ``time.process_time``, median of 5; ``--quick``: of 3):

* a discrete tree of 1,000 variables (3 states each, a random recursive tree, CPTs by
  ``fit_cpts`` on 2,000 random rows);
* a Gaussian tree of 1,000 variables (random slopes and variances, by hand);
* ALARM's Chow-Liu tree (datasets/alarm.csv, 37 discrete variables), and the Gaussian
  tree ``gaussian_chow_liu`` learns on ALARM's state codes taken as numbers (37 variables;
  a Gaussian page of ALARM's shape);
* a CLG tree on ALARM with every other column's state codes (plus N(0, 0.3^2) noise) as
  numbers (mixed: 18 continuous, 19 discrete columns);
* a k-DB (k = 2) on 12 of ALARM's features (the class ``BP``), explored by cutset
  conditioning (on all 36 features the cutset has 559,872 joint states: refused).

The floor: ``json.dumps`` of the numbers the page needs (every CPT as nested lists, or
every node's three regression numbers), the least any page builder must do. No peer
builds a self-contained interactive page from a fitted network (pyAgrum's notebook
display draws through Graphviz and computes in the kernel), so none is timed.
BLAS is pinned to one thread.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _common import machine, pin_blas, print_table, row, write_json  # noqa: E402

BENCH = "explorer"


def cpu_median(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t = time.process_time()
        fn()
        times.append(time.process_time() - t)
    return statistics.median(times)


def discrete_tree(n: int, seed: int = 0):
    import networkx as nx
    import numpy as np
    import pandas as pd

    import treelearn as tl

    rng = np.random.default_rng(seed)
    cols = [f"x{i}" for i in range(n)]
    g = nx.DiGraph()
    g.add_nodes_from(cols)
    g.add_edges_from((cols[int(rng.integers(0, i))], cols[i]) for i in range(1, n))
    data = pd.DataFrame(rng.integers(0, 3, (2000, n)), columns=cols)
    return tl.fit_cpts(g, data, alpha=1.0)


def gaussian_tree(n: int, seed: int = 0):
    import networkx as nx
    import numpy as np

    import treelearn as tl

    rng = np.random.default_rng(seed)
    g = nx.DiGraph()
    for i in range(n):
        g.add_node(
            f"x{i}",
            intercept=float(rng.normal()),
            variance=float(rng.uniform(0.5, 2)),
            coefficient=None,
        )
    for i in range(1, n):
        g.add_edge(f"x{int(rng.integers(0, i))}", f"x{i}")
        g.nodes[f"x{i}"]["coefficient"] = float(rng.normal(0, 0.7))
    return tl.GaussianTreeModel(g)


def floor_of(model) -> str:
    if getattr(model, "discrete_model", None) is not None:  # CLG: the CPTs and the Gaussians
        d = model.discrete_model
        return json.dumps(
            [
                [d.cpt(v).tolist() for v in d.variables],
                [
                    {
                        k: a.get(k)
                        for k in ("intercept", "coefficient", "variance", "means", "variances")
                    }
                    for v, a in model.graph.nodes(data=True)
                    if v in model.continuous
                ],
            ]
        )
    if hasattr(model, "cpt"):
        return json.dumps([model.cpt(v).tolist() for v in model.variables])
    return json.dumps(
        [
            [a.get("intercept"), a.get("coefficient"), a.get("variance")]
            for _, a in model.graph.nodes(data=True)
        ]
    )


def main(argv: list[str] | None = None) -> list[dict]:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--quick", action="store_true", help="medians of 3 instead of 5")
    ap.add_argument("--json", default=None, help="also write the result rows to this JSON file")
    args = ap.parse_args(argv)
    print(pin_blas(1), file=sys.stderr)
    print("machine:", machine(), f"load average {os.getloadavg()[0]:.2f}", file=sys.stderr)
    import pandas as pd

    import treelearn as tl
    from treelearn.viz._explorer import to_html

    repeats = 3 if args.quick else 5
    alarm = pd.read_csv(HERE.parent / "datasets" / "alarm.csv")
    codes = alarm.apply(lambda c: c.astype("category").cat.codes.astype(float))
    codes = codes.loc[:, codes.std() > 0]
    # a mixed table of ALARM's shape: every other column's codes plus a little noise
    rng = __import__("numpy").random.default_rng(0)
    mixed = alarm.copy()
    for c in list(codes.columns)[::2]:
        mixed[c] = codes[c] + 0.3 * rng.standard_normal(len(codes))
    cases = [
        ("discrete tree, 1,000 variables", discrete_tree(1000)),
        ("Gaussian tree, 1,000 variables", gaussian_tree(1000)),
        ("ALARM Chow-Liu tree (37)", tl.chow_liu(alarm, alpha=1.0)),
        ("ALARM Gaussian tree (37, codes as numbers)", tl.gaussian_chow_liu(codes)),
        ("ALARM CLG tree (every other column as numbers)", tl.clg_tree(mixed)),
        (
            "ALARM k-DB k=2, 12 features (cutset conditioning)",
            tl.KDB(numbers="states", k=2).fit(alarm[list(alarm.columns[:12])], alarm["BP"]),
        ),
    ]
    rows: list[dict] = []
    for case, obj in cases:
        page = to_html(obj)
        build = cpu_median(lambda o=obj: to_html(o), repeats)
        net = getattr(obj, "model_", obj)
        floor = cpu_median(lambda m=net: floor_of(m), repeats)
        rows += [
            row(
                BENCH,
                case,
                "to_html (page build)",
                build * 1e3,
                "ms",
                "<= 1000",
                build <= 1,
                note="CPU, median",
            ),
            row(BENCH, case, "json.dumps of the CPTs (floor)", floor * 1e3, "ms", note="CPU"),
            row(BENCH, case, "to_html / floor", build / max(floor, 1e-9), "x"),
            row(BENCH, case, "page size", len(page.encode("utf-8")) / 1e6, "MB"),
        ]
    print_table(rows)
    write_json(rows, args.json)
    return rows


if __name__ == "__main__":
    main()
