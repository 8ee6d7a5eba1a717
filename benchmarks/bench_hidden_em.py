"""One HiddenTree EM iteration against a bare-numpy EM of the same latent tree (issue 41).

    .venv/bin/python benchmarks/bench_hidden_em.py --debd ../shared/data/debd [--names accidents jester]
        [--states 16] [--repeat 5] [--json OUT]

The floor (:func:`floor_e_step`) is the E-step written the shortest way on the same tree
(each column ``X_i`` the one child of its latent ``H_i``, the latents a tree): the
evidence ``P(x_i | H_i)`` gathered per row, one upward pass of one batched ``(n, h) @ (h, h)``
product per edge with per-row rescaling, one downward pass of the same, then each
edge's expected counts as one product ``(outside * w / z).T @ inside`` times the table,
and each emission's as one product with the column's one-hot rows. No checks, no
chunks, no missing values. treelearn's iteration is ``_m_step(tree,
passes.sum(_EStep(tree)))`` (its engine's ``family_counts_codes`` on the joint tree of
latents and columns, rows chunked); the floor's M-step is the same smoothing. The
expected counts are compared first (largest relative difference), then CPU time, best
of ``--repeat``, interleaved, BLAS on one thread.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import machine, pin_blas, print_table, row, write_json

BENCH = "hidden_em"


def topological(parent: np.ndarray) -> list[int]:
    """The latents parents first."""
    order, seen = [], set()
    children: dict[int, list[int]] = {}
    for i, p in enumerate(parent):
        children.setdefault(int(p), []).append(i)
    stack = list(children.get(-1, []))
    while stack:
        i = stack.pop()
        if i in seen:
            continue
        seen.add(i)
        order.append(i)
        stack.extend(children.get(i, []))
    return order


def floor_e_step(parent, latent, emission, codes, w):
    """Expected counts ``(log-likelihood, latent counts, emission counts)`` of a latent tree
    by two batched passes; see the module docstring."""
    n, d = codes.shape
    order = topological(parent)
    # evidence at each latent: P(x_i | H_i) for the row's x_i, (n, h)
    inside = [emission[i][:, codes[:, i]].T.copy() for i in range(d)]
    log_scale = np.zeros(n)
    up = [None] * d  # the message latent i sends its parent, (n, h)
    for i in reversed(order):  # children before parents: inside[i] holds its subtree
        s = inside[i].max(axis=1)
        inside[i] /= s[:, None]
        log_scale += np.log(s)
        p = parent[i]
        if p >= 0:
            up[i] = inside[i] @ latent[i].T  # sum_b P(b | a) inside_i(b)
            inside[p] *= up[i]
    # each tree of the forest: its evidence z_r (scaled), every node normalised by its own
    z: dict[int, np.ndarray] = {}
    root = np.empty(d, dtype=int)
    for i in order:
        root[i] = i if parent[i] < 0 else root[parent[i]]
        if parent[i] < 0:
            z[i] = inside[i] @ latent[i]
    log_lik = float((sum(np.log(v) for v in z.values()) + log_scale) @ w)
    scales = {r: w / v for r, v in z.items()}
    outside = [None] * d  # P(evidence outside i's subtree, H_i), up to the row's scale
    lat_counts = [None] * d
    for i in order:  # parents before children
        p = parent[i]
        scale = scales[root[i]]
        if p < 0:
            outside[i] = np.broadcast_to(latent[i], (n, len(latent[i])))
            lat_counts[i] = (outside[i] * inside[i]).T @ scale
            continue
        # the parent's belief without i's message: outside_p * inside_p / up_i
        with np.errstate(invalid="ignore", divide="ignore"):
            rest = outside[p] * np.where(up[i] > 0, inside[p] / up[i], 0.0)
        outside[i] = rest @ latent[i]
        lat_counts[i] = latent[i] * ((rest * scale[:, None]).T @ inside[i])
    emi_counts = []
    for i in range(d):
        post = outside[i] * inside[i] * scales[root[i]][:, None]  # w P(H_i | row)
        k = emission[i].shape[1]
        onehot = np.zeros((n, k))
        onehot[np.arange(n), codes[:, i]] = 1.0
        emi_counts.append(post.T @ onehot)
    return log_lik, lat_counts, emi_counts


def case_rows(folder: str, name: str, h: int, repeat: int) -> list[dict]:
    from bench_density import load

    import treelearn as tl
    from treelearn.learners import _hidden_tree as hidden
    from treelearn.sources._passes import row_passes

    train = load(folder, name, "ts")
    states = {c: [0, 1] for c in train.columns}
    est = tl.HiddenTree(
        n_states=h, alpha=1.0, mi_alpha=1.0, random_state=0, states=states, max_iter=2
    ).fit(train)
    names = est.latent_names_
    model = est.model_.network
    tree = hidden.LatentTree(
        np.array([names.index(model.parents(v)[0]) if model.parents(v) else -1 for v in names]),
        [model.cpt(v) for v in names],
        [model.cpt(c) for c in train.columns],
    )
    passes = row_passes(train, learner="bench", states=states)
    codes = np.asarray(passes.table.codes, dtype=np.intp)
    w = passes.table.weights
    w = np.ones(len(codes)) if w is None else np.asarray(w, dtype=float)

    ours = passes.sum(hidden._EStep(tree))
    ll, lat, emi = floor_e_step(tree.parent, tree.latent, tree.emission, codes, w)
    gap = max(
        max(
            float(np.abs(a - b).max() / max(np.abs(a).max(), 1.0)) for a, b in zip(ours.latent, lat)
        ),
        max(
            float(np.abs(a - b).max() / max(np.abs(a).max(), 1.0))
            for a, b in zip(ours.emission, emi)
        ),
        abs(ours.log_likelihood - ll) / abs(ll),
    )
    t_ours, t_floor = [], []
    for _ in range(repeat):  # interleaved
        t = time.process_time()
        hidden._m_step(tree, passes.sum(hidden._EStep(tree)), 1.0, False)
        t_ours.append(time.process_time() - t)
        t = time.process_time()
        _, lat_f, emi_f = floor_e_step(tree.parent, tree.latent, tree.emission, codes, w)
        [(c + 1.0) / (c + 1.0).sum(axis=-1, keepdims=True) for c in lat_f + emi_f]
        t_floor.append(time.process_time() - t)
    ratio = min(t_ours) / min(t_floor)
    case = f"{name}, {len(codes):,} distinct rows x {codes.shape[1]}, h = {h}"
    return [
        row(
            BENCH,
            case,
            "expected counts: largest relative difference",
            f"{gap:.1e}",
            "",
            "<= 1e-9",
            gap <= 1e-9,
        ),
        row(BENCH, case, "treelearn EM iteration (E + M)", min(t_ours), "s"),
        row(BENCH, case, "floor: bare-numpy EM iteration", min(t_floor), "s"),
        row(
            BENCH,
            case,
            "treelearn / floor",
            ratio,
            "x",
            "<= 1.3",
            ratio <= 1.3,
            note=f"CPU time, best of {repeat}, interleaved",
        ),
    ]


def main(argv=None) -> list[dict]:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--debd", default=None, help="the DEBD folder (e.g. ../shared/data/debd)")
    ap.add_argument("--names", nargs="+", default=["accidents", "jester"])
    ap.add_argument("--states", type=int, default=16)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    print(pin_blas(1))
    print("machine:", machine())
    rows: list[dict] = []
    if args.debd is None:  # run_all.py without --debd
        rows.append(row(BENCH, "DEBD", "skipped", "no --debd folder", note="pass --debd PATH"))
    for name in args.names if args.debd else []:
        rows += case_rows(args.debd, name, args.states, args.repeat)
        print_table(rows[-4:])
    print_table(rows)
    write_json(rows, args.json)
    return rows


if __name__ == "__main__":
    main()
