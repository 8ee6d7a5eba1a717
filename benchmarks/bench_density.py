"""Density estimation beyond one tree: mixtures, hidden Chow-Liu trees, cutset networks, bags.

    .venv/bin/python benchmarks/bench_density.py --debd PATH [--only nltcs,plants] [--quick]
        [--skip-density] [--skip-speed] [--skip-em] [--rows 1000000] [--json OUT]
        [--results FILE.jsonl --budget SECONDS]

``--results``: the DEBD quality runs one dataset at a time in a child process, smallest
first (rows x variables), stopped after ``--budget`` seconds; each column's result is
appended to FILE as soon as it is known, so a stopped run keeps what it finished (the
table lists the datasets with every column); ``--columns HCLT,cutset`` refits some columns
only, and the later line of a dataset's column replaces the earlier one when the file is
read. The results of the runs reported in ``benchmarks/README.md`` are kept in
``benchmarks/results/debd_density.jsonl``.

**Density quality** (DEBD, the twenty binary sets of ``shared/data/debd``, used by path,
never copied): every model learns on ``NAME.ts``, chooses its hyper-parameters (and stops
early) on ``NAME.valid`` and is scored on ``NAME.test`` (log-likelihood per row, nats):

* tree: ``tl.chow_liu(train, alpha=1, mi_alpha=1)`` (the published CLT column);
* mixture: ``tl.TreeMixture(n_components=range(2, 17))``, ``k`` chosen in one call by
  growing (splitting the weakest component) on the validation rows;
* HCLT: ``tl.HiddenTree(n_states=16, alpha=0.01, init="random", max_iter=200)``
  (``n_states=8`` beyond 200 columns), EM stopped on the validation rows (10 iterations
  without a better score);
* cutset: ``tl.CutsetNetwork(max_depth=10, min_rows=...)``, pruned on the validation rows;
* bagged: ``tl.CutsetNetwork(n_estimators=10)`` (bagged cutset networks) and
  ``tl.BaggedTrees(n_estimators=10, n_components=4)`` (bagged mixtures of trees), the one
  better on the validation rows.

All with ``alpha=1`` (HCLT 0.01), ``mi_alpha=1`` and ``random_state=0``; fit times are wall seconds on
the shared 2-core machine (BLAS pinned to one thread), so they are noisy.

**Speed** (``--skip-speed`` leaves it out): one TreeMixture EM iteration (k = 8, plants
and accidents) against a bare-numpy EM iteration on the same distinct rows and the same
responsibilities (best of 7 each, interleaved; target <= 1.2x); choosing ``k`` in 2..16
in one call against the fit at the chosen ``k`` (target <= 3x); one HiddenTree EM
iteration against one Chow-Liu fit on the expanded statistics (the latents' posteriors
as soft one-hot rows: one ``Q.T @ (w Q)`` product, MI, spanning tree; target <= 3x).

**Streaming** (``--rows N``, default 1,000,000; 0 skips): a CSV of N rows sampled from a
mixture, learned by ``TreeMixture(init="k_best", chunksize=100_000)`` (one pass per EM
iteration, 10 iterations), in a
fresh child process: peak RSS rise against the same fit on one 100,000-row chunk in
memory (target <= 2x).

**EM on holes** (``--skip-em`` leaves it out): CHILD (pgmpy's bundled network), rows
forward-sampled, 30 % of the training cells hidden at random, test rows complete: held-out
log-likelihood per row of ``chow_liu(missing="pairwise")`` against structural EM
(``missing="em"``), and of ``fit_cpts(CHILD's own DAG, missing="pairwise")`` against
``missing="em"`` (exact EM on a DAG of multi-parent families), for 2,000 and 5,000
training rows and two seeds each; CPU seconds of each fit.

``--quick``: nltcs and plants only, smaller grids, no streaming (what run_all.py runs with
--quick).
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
from _common import ROOT, machine, measure_in_child, peak_rss_increase, pin_blas, row, write_json

import treelearn as tl

BENCH = "density"
DEFAULT_PATH = str(ROOT.parent / "shared" / "data" / "debd")
ALL_SETS = (
    "nltcs,msnbc,kdd,plants,baudio,jester,bnetflix,accidents,tretail,pumsb_star,dna,"
    "kosarek,msweb,book,tmovie,cwebkb,cr52,c20ng,bbc,ad"
)
QUICK_SETS = "nltcs,plants"
#: the published single Chow-Liu tree (shared/data/README.md), for the record
PUBLISHED_CLT = {
    "nltcs": -6.759,
    "msnbc": -6.540,
    "kdd": -2.295,
    "plants": -16.524,
    "baudio": -44.375,
    "jester": -58.227,
    "bnetflix": -60.250,
    "accidents": -33.188,
    "tretail": -10.947,
    "pumsb_star": -30.807,
    "dna": -87.735,
    "kosarek": -11.490,
    "msweb": -10.193,
    "book": -37.843,
    "tmovie": -64.791,
    "cwebkb": -163.471,
    "cr52": -94.435,
    "c20ng": -164.117,
    "bbc": -261.856,
    "ad": -16.918,
}


def load(folder: str, name: str, part: str) -> pd.DataFrame:
    return pd.read_csv(os.path.join(folder, f"{name}.{part}.data.gz"), header=None, dtype=np.int8)


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


# ---------------------------------------------------------------------- density quality
def candidates(d: int, n: int, quick: bool) -> dict:
    """Each column's models to try: ``{column: [(label, factory), ...]}``; the factory
    takes the states and returns an unfitted estimator."""
    common = dict(alpha=1.0, mi_alpha=1.0, random_state=0)
    # HCLT: one latent size (each EM run of 16 states costs 4x one of 8), a pseudocount
    # of 0.01 (alpha = 1 on 16 x 16 latent tables smooths away what the latents learned:
    # nltcs test -6.064 at h = 8, alpha = 1, 60 iterations; -6.017 at h = 16, alpha = 0.01)
    hs = (8,) if quick or d > 200 else (16,)
    ks = range(2, 9) if quick else range(2, 17)
    min_rows = max(50, n // 200)
    return {
        "mixture": [
            (
                f"k={ks.start}..{ks.stop - 1}",
                lambda st: tl.TreeMixture(n_components=ks, states=st, **common),
            )
        ],
        "HCLT": [
            (
                f"h={h}, alpha=0.01",
                lambda st, h=h: tl.HiddenTree(
                    n_states=h,
                    states=st,
                    init="random",
                    max_iter=200,
                    tol=1e-6,
                    n_iter_no_change=10,
                    **{**common, "alpha": 0.01},
                ),
            )
            for h in hs
        ],
        "cutset": [
            (
                f"depth 10, min_rows {min_rows}",
                lambda st: tl.CutsetNetwork(max_depth=10, min_rows=min_rows, states=st, **common),
            )
        ],
        "bagged": [
            (
                "bagged CN x10, depth 8",
                lambda st: tl.CutsetNetwork(
                    max_depth=8, min_rows=min_rows, n_estimators=10, states=st, **common
                ),
            ),
            (
                "bagged MT x10, k=4",
                lambda st: tl.BaggedTrees(
                    n_estimators=10 if not quick else 5,
                    n_components=4,
                    states=st,
                    max_iter=40,
                    **common,
                ),
            ),
        ],
    }


#: the order of the columns' fits within a dataset: the cheap ones first (the ten bagged
#: networks cost most), so that a dataset stopped by --budget still has them
COLUMN_ORDER = ("cutset", "mixture", "HCLT", "bagged")


def density(
    folder: str, name: str, quick: bool, results: str | None = None, columns: tuple = COLUMN_ORDER
) -> dict:
    """Every column's test LL on one dataset (``columns``: some only; the tree always);
    with ``results``, each column's result is appended to that JSON-lines file as soon as
    it is known (a run stopped midway keeps what it finished; a later line of the same
    dataset and column replaces an earlier one when the file is read)."""
    train, valid, test = (load(folder, name, p) for p in ("ts", "valid", "test"))
    states = {c: [0, 1] for c in train.columns}
    tree, tree_s = timed(lambda: tl.chow_liu(train, alpha=1.0, mi_alpha=1.0, states=states))
    out = {
        "name": name,
        "d": train.shape[1],
        "n": len(train),
        "tree": {"test": tree.log_likelihood(test) / len(test), "s": tree_s},
    }
    _record(results, name, "tree", out["tree"])
    grid = candidates(train.shape[1], len(train), quick)
    for column in (c for c in COLUMN_ORDER if c in columns):
        options = grid[column]
        best, total = None, 0.0
        for label, factory in options:
            est, s = timed(lambda f=factory: f(states).fit(train, validation=valid))
            total += s
            v = est.score(valid)
            print(
                f"  {name} {column} {label}: valid {v:.3f} test {est.score(test):.3f} {s:.1f} s",
                file=sys.stderr,
                flush=True,
            )
            if best is None or v > best["valid"]:
                best = {"valid": v, "test": est.score(test), "label": label}
        out[column] = {**best, "s": total}
        _record(results, name, column, out[column])
    return out


def _record(results: str | None, name: str, column: str, value: dict) -> None:
    if results is not None:
        with open(results, "a") as fh:
            fh.write(json.dumps({"name": name, "column": column, **value}) + "\n")


def by_size(names: list) -> list:
    """Smallest first: by the cells of the training table (rows x variables)."""
    from bench_debd import REFERENCE

    return sorted(names, key=lambda n: REFERENCE[n][0] * REFERENCE[n][1])


def run_budgeted(
    folder: str,
    names: list,
    quick: bool,
    results: str,
    budget: float,
    columns: tuple = COLUMN_ORDER,
) -> list:
    """Each dataset in a child process (``nice`` is inherited) stopped after ``budget``
    seconds, smallest first; every column's result goes to ``results`` as it finishes.
    Returns the complete rows read back from the file."""
    import subprocess

    for name in by_size(names):
        command = [
            sys.executable,
            os.path.abspath(__file__),
            "--child-density",
            folder,
            name,
            results,
            ",".join(columns),
        ] + (["--quick"] if quick else [])
        start = time.perf_counter()
        try:
            subprocess.run(command, timeout=budget, check=False)
            status = "done"
        except subprocess.TimeoutExpired:
            status = f"stopped at the {budget:.0f} s budget"
            _record(results, name, "stopped", {"budget": budget})
        print(
            f"{name}: {status} after {time.perf_counter() - start:.0f} s",
            file=sys.stderr,
            flush=True,
        )
    return read_results(results)


def read_results(results: str) -> list:
    """The datasets of a results file with every column, in the file's order."""
    rows: dict = {}
    with open(results) as fh:
        for line in fh:
            r = json.loads(line)
            rows.setdefault(r["name"], {"name": r["name"]})[r.pop("column")] = r
    complete = []
    for name, r in rows.items():
        if all(c in r for c in ("tree",) + COLUMN_ORDER):
            ref = __import__("bench_debd").REFERENCE[name]
            complete.append({**r, "d": ref[0], "n": ref[1]})
    return complete


NEW_COLUMNS = ("HCLT", "cutset", "bagged")


def latest_lines(paths: list) -> dict:
    """``{dataset: {column: result}}`` of results files read in turn, a later line of a
    dataset's column replacing an earlier one (a refit)."""
    rows: dict = {}
    for path in paths:
        with open(path) as fh:
            for line in fh:
                r = json.loads(line)
                if r["column"] != "stopped":
                    rows.setdefault(r["name"], {})[r.pop("column")] = r
    return rows


def summary_table(paths: list) -> str:
    """The markdown table of every dataset of the results files, with the columns it has
    (``—``: not run), smallest first: the model chosen on the validation rows among the new
    columns that were run, its test LL against the tree and the mixture, and the tallies
    the criterion needs (beat the tree on every dataset, the mixture on >= 15 of 20).

    >>> import tempfile, os
    >>> lines = [{"name": "nltcs", "column": "tree", "test": -6.8, "s": 1.0},
    ...          {"name": "nltcs", "column": "mixture", "valid": -6.0, "test": -6.1, "s": 2.0},
    ...          {"name": "nltcs", "column": "HCLT", "valid": -5.9, "test": -6.0, "s": 3.0,
    ...           "label": "h=16"}]
    >>> with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as fh:
    ...     _ = fh.write("\\n".join(json.dumps(x) for x in lines))
    >>> print(summary_table([fh.name]).splitlines()[-1]); os.remove(fh.name)
    shown: 1 of 20 datasets; the chosen model beats the tree on 1 of 1 and the mixture on 1 of 1
    """
    from bench_debd import REFERENCE

    rows = latest_lines(paths)

    def cell(r: dict, column: str) -> str:
        return f"{r[column]['test']:.3f}" if column in r else "—"

    def secs(r: dict, column: str) -> str:
        return f"{r[column]['s']:.0f}" if column in r else "—"

    out = [
        "| dataset | d | tree | mixture | HCLT | cutset | bagged | chosen on valid "
        "(of the columns run) | chosen - tree | chosen - mixture | fit s (mixture / HCLT "
        "/ cutset / bagged) |",
        "|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---|",
    ]
    shown = beat_tree = beat_mixture = 0
    for name in by_size([n for n in rows if n in REFERENCE]):
        r = rows[name]
        run = [c for c in NEW_COLUMNS if c in r]
        if run and "tree" in r:
            chosen = max(run, key=lambda c: r[c]["valid"])
            best = r[chosen]["test"]
            choice = f"{chosen} ({r[chosen].get('label', '')})"
            vs_tree = f"{best - r['tree']['test']:+.3f}"
            vs_mix = f"{best - r['mixture']['test']:+.3f}" if "mixture" in r else "—"
            if "mixture" in r:
                shown += 1
                beat_tree += best > r["tree"]["test"]
                beat_mixture += best > r["mixture"]["test"]
        else:
            choice, vs_tree, vs_mix = "no new column run", "—", "—"
        out.append(
            f"| {name} | {REFERENCE[name][0]} | {cell(r, 'tree')} | {cell(r, 'mixture')} "
            f"| {cell(r, 'HCLT')} | {cell(r, 'cutset')} | {cell(r, 'bagged')} | {choice} "
            f"| {vs_tree} | {vs_mix} | {secs(r, 'mixture')} / {secs(r, 'HCLT')} / "
            f"{secs(r, 'cutset')} / {secs(r, 'bagged')} |"
        )
    out.append("")
    out.append(
        f"shown: {shown} of {len(ALL_SETS.split(','))} datasets; the chosen model beats "
        f"the tree on {beat_tree} of {shown} and the mixture on {beat_mixture} of {shown}"
    )
    return "\n".join(out)


def density_rows(results: list) -> list:
    print()
    print(
        "| dataset | d | tree | mixture | HCLT | cutset | bagged | best new - tree | "
        "best new - mixture | fit s (mixture / HCLT / cutset / bagged) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    rows = []
    for r in results:
        new = {c: r[c]["test"] for c in ("HCLT", "cutset", "bagged")}
        chosen = max(("HCLT", "cutset", "bagged"), key=lambda c: r[c]["valid"])  # by validation
        best = new[chosen]
        print(
            f"| {r['name']} | {r['d']} | {r['tree']['test']:.3f} | {r['mixture']['test']:.3f} | "
            f"{new['HCLT']:.3f} | {new['cutset']:.3f} | {new['bagged']:.3f} | "
            f"{best - r['tree']['test']:+.3f} | {best - r['mixture']['test']:+.3f} | "
            f"{r['mixture']['s']:.0f} / {r['HCLT']['s']:.0f} / {r['cutset']['s']:.0f} / "
            f"{r['bagged']['s']:.0f} |",
            flush=True,
        )
        case = f"{r['name']} d={r['d']} n={r['n']}"
        note = (
            f"{chosen} ({r[chosen]['label']}) chosen on valid; tree {r['tree']['test']:.3f}, "
            f"mixture {r['mixture']['test']:.3f} ({r['mixture']['label']})"
        )
        rows.append(
            row(
                BENCH,
                case,
                "test LL, best new model (by valid) - tree",
                best - r["tree"]["test"],
                "nats",
                "> 0",
                bool(best > r["tree"]["test"]),
                note=note,
            )
        )
        rows.append(
            row(
                BENCH,
                case,
                "test LL, best new model (by valid) - mixture",
                best - r["mixture"]["test"],
                "nats",
                "> 0 on 15 of 20",
                note=note,
            )
        )
    wins = sum(
        1
        for r in results
        if max(("HCLT", "cutset", "bagged"), key=lambda c: r[c]["valid"])
        and r[max(("HCLT", "cutset", "bagged"), key=lambda c: r[c]["valid"])]["test"]
        > r["mixture"]["test"]
    )
    rows.append(
        row(
            BENCH,
            f"{len(results)} DEBD sets",
            "datasets where the best new model beats the mixture",
            wins,
            "",
            ">= 15 of 20" if len(results) == 20 else "",
            (wins >= 15) if len(results) == 20 else None,
        )
    )
    print(f"\nthe best new model (chosen on valid) beats the mixture on {wins} of {len(results)}")
    return rows


# ---------------------------------------------------------------------- speed
def bare_em_iteration(
    X: np.ndarray,
    codes: np.ndarray,
    w: np.ndarray,
    resp: np.ndarray,
    offsets: np.ndarray,
    card: np.ndarray,
) -> np.ndarray:
    """One EM iteration of a mixture of Chow-Liu trees in plain numpy, the floor to compare
    with: per component one weighted float64 one-hot product ``X.T @ (r w X)``, MI of the
    smoothed joint (a = 1 per cell) per block, scipy's spanning tree, CPTs and the
    component's log-likelihood by one gather per edge; then the responsibilities. No
    validation, no model objects."""
    from scipy.sparse.csgraph import breadth_first_order, minimum_spanning_tree

    starts = offsets[:-1]
    n, k = resp.shape
    log_prob = np.empty((n, k))
    mass = (resp * w[:, None]).sum(axis=0)
    for c in range(k):
        N = X.T @ (X * (resp[:, c] * w)[:, None])
        J = N + 1.0
        blocks = np.add.reduceat(np.add.reduceat(J, starts, axis=0), starts, axis=1)
        P = J / np.repeat(np.repeat(blocks, card, axis=0), card, axis=1)
        rows_m = np.repeat(np.add.reduceat(P, starts, axis=1), card, axis=1)
        cols_m = np.repeat(np.add.reduceat(P, starts, axis=0), card, axis=0)
        mi = np.add.reduceat(
            np.add.reduceat(P * np.log(P / (rows_m * cols_m)), starts, axis=0), starts, axis=1
        )
        np.fill_diagonal(mi, 0.0)
        tree = minimum_spanning_tree(np.triu(-(mi + 1.0), k=1))
        order, pred = breadth_first_order(tree + tree.T, 0, directed=False)
        root = order[0]
        counts = np.diag(N)[starts[root] : starts[root] + card[root]] + 1.0
        ll = np.log(counts / counts.sum())[codes[:, root]]
        for v in order[1:]:
            p = pred[v]
            block = N[starts[p] : starts[p] + card[p], starts[v] : starts[v] + card[v]] + 1.0
            ll = ll + np.log(block / block.sum(axis=1, keepdims=True))[codes[:, p], codes[:, v]]
        log_prob[:, c] = np.log(mass[c] / mass.sum()) + ll
    top = log_prob.max(axis=1, keepdims=True)
    norm = top[:, 0] + np.log(np.exp(log_prob - top).sum(axis=1))
    return np.exp(log_prob - norm[:, None])


def em_case(folder: str, name: str, k: int = 8) -> tuple:
    """One EM iteration's inputs on DEBD ``name``: ``(ours, floor, table, resp)``, two
    calls (TreeMixture's ``_em`` of one iteration, :func:`bare_em_iteration`) on the same
    distinct rows and starting responsibilities (also used by ``bench_peers.py``)."""
    from treelearn.encoding._table import encode
    from treelearn.learners import _mixture as mixture
    from treelearn.learners._density import EMSchedule
    from treelearn.sources._passes import merge_identical_rows

    train = load(folder, name, "ts")
    table, group = merge_identical_rows(encode(train, states={c: [0, 1] for c in train.columns}))
    est = tl.TreeMixture(n_components=k, alpha=1.0, mi_alpha=1.0, random_state=0)
    settings = est._settings(est._checked_params())
    resp = mixture._initial_responsibilities(
        table, group, k, "random", np.random.default_rng(0), settings
    )
    options = mixture._Options(settings, EMSchedule(max_iter=1, tol=0.0))
    codes = table.codes.astype(np.intp)
    card = table.cardinalities
    offsets = np.concatenate([[0], np.cumsum(card)])
    X = np.zeros((len(codes), offsets[-1]))
    X[np.arange(len(codes))[:, None], offsets[:-1] + codes] = 1.0
    return (
        lambda: mixture._em(table, resp, options),
        lambda: bare_em_iteration(X, codes, table.weights, resp, offsets, card),
        table,
        resp,
    )


def mixture_iteration(folder: str, name: str, k: int = 8, repeat: int = 7) -> list:
    ours_call, bare_call, table, _ = em_case(folder, name, k)
    codes = table.codes
    ours, bare = [], []
    for _ in range(repeat):  # interleaved: both see the same load
        ours.append(timed(ours_call)[1])
        bare.append(timed(bare_call)[1])
    ratio = min(ours) / min(bare)
    print(
        f"{name}: TreeMixture EM iteration (k={k}) {min(ours):.3f} s, bare numpy "
        f"{min(bare):.3f} s: {ratio:.2f}x ({len(codes)} distinct rows)",
        flush=True,
    )
    return [
        row(
            BENCH,
            f"{name} k={k}",
            "EM iteration / bare-numpy EM iteration",
            ratio,
            "x",
            "<= 1.2",
            bool(ratio <= 1.2),
            note=f"{min(ours):.3f} s vs {min(bare):.3f} s, best of {repeat}, interleaved",
        )
    ]


def choosing_k(folder: str, name: str, quick: bool) -> list:
    train, valid = load(folder, name, "ts"), load(folder, name, "valid")
    states = {c: [0, 1] for c in train.columns}
    common = dict(alpha=1.0, mi_alpha=1.0, random_state=0, states=states)
    ks = range(2, 9) if quick else range(2, 17)
    grown, grow_s = timed(
        lambda: tl.TreeMixture(n_components=ks, **common).fit(train, validation=valid)
    )
    k = grown.n_components_
    _, fixed_s = timed(
        lambda: tl.TreeMixture(n_components=k, **common).fit(train, validation=valid)
    )
    ratio = grow_s / fixed_s
    print(
        f"{name}: choosing k in {ks.start}..{ks.stop - 1} took {grow_s:.1f} s (chose k={k}, "
        f"tried {sorted(grown.n_components_scores_)}); the fit at k={k} {fixed_s:.1f} s: "
        f"{ratio:.2f}x",
        flush=True,
    )
    return [
        row(
            BENCH,
            f"{name} k in {ks.start}..{ks.stop - 1}",
            "choosing k in one call / the fit at the chosen k",
            ratio,
            "x",
            "<= 3",
            bool(ratio <= 3),
            note=f"k={k}: {grow_s:.1f} s vs {fixed_s:.1f} s",
        )
    ]


def hidden_iteration(folder: str, name: str, h: int = 16, repeat: int = 5) -> list:
    from treelearn.learners import _hidden_tree as hidden
    from treelearn.learners._chow_liu import chow_liu_from_counts
    from treelearn.sources._passes import row_passes
    from treelearn.stats._counts import CountedTable, PairCounts
    from treelearn.stats._settings import LearningSettings

    train = load(folder, name, "ts")
    est = tl.HiddenTree(
        n_states=h,
        alpha=1.0,
        mi_alpha=1.0,
        random_state=0,
        states={c: [0, 1] for c in train.columns},
        max_iter=3,
    ).fit(train)
    passes = row_passes(train, learner="bench", states={c: [0, 1] for c in train.columns})
    names = est.latent_names_
    model = est.model_.network
    tree = hidden.LatentTree(
        np.array([names.index(model.parents(v)[0]) if model.parents(v) else -1 for v in names]),
        [model.cpt(v) for v in names],
        [model.cpt(c) for c in train.columns],
    )
    codes, w = passes.table.codes, passes.table.weights
    settings = LearningSettings(method="bench", alpha=1.0, mi_alpha=1.0)
    # the expanded statistics: the latents' posteriors as soft one-hot rows (n x d h)
    Q = np.hstack(model.engine().marginals_codes(hidden._joint_codes(codes))[: len(names)])
    cards = np.full(len(names), h)

    def chow_liu_expanded():
        joint = Q.T @ (Q * w[:, None])
        stats = CountedTable(
            tuple(names),
            tuple(tuple(range(h)) for _ in names),
            (),
            pairs=PairCounts(joint, cards, float(w.sum())),
        )
        return chow_liu_from_counts(stats, settings)

    t_iter, t_cl = [], []
    for _ in range(repeat):  # interleaved
        t_iter.append(
            timed(lambda: hidden._m_step(tree, passes.sum(hidden._EStep(tree)), 1.0, False))[1]
        )
        t_cl.append(timed(chow_liu_expanded)[1])
    ratio = min(t_iter) / min(t_cl)
    print(
        f"{name}: HiddenTree EM iteration (h={h}) {min(t_iter):.3f} s; Chow-Liu on the "
        f"expanded statistics {min(t_cl):.3f} s: {ratio:.2f}x",
        flush=True,
    )
    return [
        row(
            BENCH,
            f"{name} h={h}",
            "HCLT EM iteration / Chow-Liu on expanded statistics",
            ratio,
            "x",
            "<= 3",
            bool(ratio <= 3),
            note=f"{min(t_iter):.3f} s vs {min(t_cl):.3f} s, best of {repeat}",
        )
    ]


# ---------------------------------------------------------------------- EM on holes
def em_held_out(quick: bool) -> list:
    import warnings

    import networkx as nx

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from pgmpy.sampling import BayesianModelSampling
        from pgmpy.utils import get_example_model

        bn = get_example_model("child")
        dag = nx.DiGraph(bn.edges())
        dag.add_nodes_from(bn.nodes())
        rows = []
        for n in (2000,) if quick else (2000, 5000):
            for seed in (0,) if quick else (0, 1):
                data = BayesianModelSampling(bn).forward_sample(
                    size=n + 5000, seed=seed, show_progress=False
                )
                train, test = data.iloc[:n], data.iloc[n:]
                holes = train.mask(np.random.default_rng(seed).random(train.shape) < 0.3)
                scores = {}
                for label, fit, args in (
                    ("tree pairwise", tl.chow_liu, (holes, "pairwise")),
                    ("tree structural EM", tl.chow_liu, (holes, "em")),
                    ("DAG pairwise", tl.fit_cpts, (dag, holes, "pairwise")),
                    ("DAG EM", tl.fit_cpts, (dag, holes, "em")),
                ):
                    t = time.process_time()
                    model = fit(*args[:-1], missing=args[-1])
                    cpu = time.process_time() - t
                    scores[label] = model.log_likelihood(test) / len(test)
                    print(
                        f"  CHILD n={n} seed={seed} {label}: test {scores[label]:.4f} "
                        f"({cpu:.1f} s CPU)",
                        file=sys.stderr,
                        flush=True,
                    )
                for kind in ("tree", "DAG"):
                    gain = (
                        scores[f"{kind} {'structural EM' if kind == 'tree' else 'EM'}"]
                        - scores[f"{kind} pairwise"]
                    )
                    rows.append(
                        row(
                            BENCH,
                            f"CHILD n={n} seed={seed}, 30 % missing",
                            f"{kind}: test LL per row, EM - pairwise",
                            gain,
                            "nats",
                            "> 0",
                            bool(gain > 0),
                            note=f"pairwise {scores[f'{kind} pairwise']:.4f}",
                        )
                    )
                    print(f"CHILD n={n} seed={seed} {kind}: EM - pairwise {gain:+.4f}", flush=True)
    return rows


# ---------------------------------------------------------------------- streaming
def streaming(rows: int, debd: str, chunk: int = 100_000) -> list:
    folder = os.environ.get("TREELEARN_BENCH_CACHE", "/tmp/treelearn-bench")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"mixture_{rows}.csv")
    if not os.path.exists(path):
        source = tl.TreeMixture(n_components=4, random_state=0).fit(load(debd, "nltcs", "ts"))
        source.sample(rows, random_state=0).to_csv(path + ".tmp", index=False)
        os.replace(path + ".tmp", path)
    streamed = measure_in_child(__file__, "--child-stream", path, str(chunk))
    one = measure_in_child(__file__, "--child-chunk", path, str(chunk))
    ratio = streamed["peak_increase"] / one["peak_increase"]
    print(
        f"streaming {rows:,} rows in chunks of {chunk:,}: peak RSS rise "
        f"{streamed['peak_increase'] / 2**20:.0f} MiB ({streamed['seconds']:.0f} s); one "
        f"chunk in memory {one['peak_increase'] / 2**20:.0f} MiB: {ratio:.2f}x",
        flush=True,
    )
    return [
        row(
            BENCH,
            f"CSV of {rows:,} rows, chunks of {chunk:,}",
            "peak RSS, streamed mixture fit / one chunk in memory",
            ratio,
            "x",
            "<= 2",
            bool(ratio <= 2),
            note=f"{streamed['peak_increase'] / 2**20:.0f} MiB vs "
            f"{one['peak_increase'] / 2**20:.0f} MiB",
        )
    ]


def _child(kind: str, path: str, chunk: int) -> None:
    pin_blas(1)
    opts = dict(n_components=4, init="k_best", max_iter=10, tol=0.0)
    if kind == "--child-stream":
        result = peak_rss_increase(lambda: tl.TreeMixture(chunksize=chunk, **opts).fit(path))
    else:
        frame = pd.read_csv(path, nrows=chunk)
        result = peak_rss_increase(lambda: tl.TreeMixture(**opts).fit(frame))
    result.pop("result")
    print(json.dumps(result))


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--debd", default=DEFAULT_PATH, help="folder of the DEBD files")
    parser.add_argument("--only", default=None, help="comma-separated DEBD names")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--skip-density", action="store_true")
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument("--skip-em", action="store_true")
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--json", default=None)
    parser.add_argument(
        "--results",
        default=None,
        help="DEBD quality: append each dataset's columns to this JSON-lines "
        "file as they finish, each dataset in a child process",
    )
    parser.add_argument(
        "--columns",
        default=",".join(COLUMN_ORDER),
        help="DEBD quality: the columns to fit (comma-separated; with "
        "--results, refit some columns of datasets already run)",
    )
    parser.add_argument(
        "--budget",
        type=float,
        default=1800.0,
        help="with --results: seconds per dataset before it is stopped",
    )
    parser.add_argument(
        "--table",
        default=None,
        help="print the markdown table of these results files (comma-"
        "separated, later lines replace earlier ones) and stop",
    )
    args = parser.parse_args(argv)
    if args.table:
        print(summary_table(args.table.split(",")))
        return []
    names = (args.only or (QUICK_SETS if args.quick else ALL_SETS)).split(",")
    print(pin_blas(1))
    print("machine:", machine())
    print(f"treelearn {tl.__version__}")
    rows: list = []
    have = os.path.isdir(args.debd)
    if not have:
        print(f"no DEBD folder {args.debd!r}; skipping DEBD", file=sys.stderr)
    if have and not args.skip_speed:
        for name in ("plants",) if args.quick else ("plants", "accidents"):
            rows += mixture_iteration(args.debd, name)
        rows += choosing_k(args.debd, "plants", args.quick)
        rows += hidden_iteration(args.debd, "plants")
    if not args.skip_em:
        rows += em_held_out(args.quick)
    if args.rows and not args.quick:
        rows += streaming(args.rows, args.debd)
    if have and not args.skip_density:
        if args.results:
            results = run_budgeted(
                args.debd,
                names,
                args.quick,
                args.results,
                args.budget,
                tuple(args.columns.split(",")),
            )
        else:
            results = []
            for name in names:
                results.append(density(args.debd, name, args.quick))
                print(json.dumps(results[-1]), file=sys.stderr, flush=True)
        rows += density_rows(results)
    write_json(rows, args.json)
    return rows


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child-density":
        print(pin_blas(1), file=sys.stderr)
        density(
            sys.argv[2],
            sys.argv[3],
            "--quick" in sys.argv,
            sys.argv[4],
            tuple(sys.argv[5].split(",")),
        )
    elif len(sys.argv) > 1 and sys.argv[1].startswith("--child-"):
        _child(sys.argv[1], sys.argv[2], int(sys.argv[3]))
    else:
        main()
