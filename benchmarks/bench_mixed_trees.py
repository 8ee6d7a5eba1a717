"""CLG trees over mixed tables: fit time against Chow-Liu on the discretized table, and
held-out log-likelihood against a Gaussian-only and a discretized tree.

    .venv/bin/python benchmarks/bench_mixed_trees.py [--quick] [--json PATH]

The data: rows sampled from a random CLG tree (20 discrete columns of 3 states, 20
numeric ones, each numeric column under a discrete or a numeric parent), 100,000
training rows and 20,000 held out (``--quick``: 10,000 and 5,000).

1. Fit: ``tl.clg_tree(df, numeric=numbers)`` (the CLG tree) against ``tl.chow_liu`` of
   the same table with every number cut into 5 quantile bins (the bins made beforehand,
   not timed). CPU time, best of 3 (1 with ``--quick``). Target: within 3x.
2. Held-out log-likelihood per row (nats, a density over the same space for all):
   the CLG tree; the discrete columns' Chow-Liu tree plus the numbers' Gaussian
   Chow-Liu tree (no edge between the kinds: "Gaussian-only" for the numbers); the
   discretized tree, each number's bin probability spread evenly over the bin
   (``log P(bins) - sum log width``; held-out values beyond the training range are
   clipped into the end bins); and the true model.
3. Queries, vectorised over rows: ``score_samples`` of the held-out rows with 30% of
   the cells missing, and the posterior of a discrete column given the rest.

4. Accuracy, 10-fold stratified CV: ``MixedTAN``, ``CopulaTAN`` and ``KernelTAN``
   against ``GaussianTAN``, ``MixedNaiveBayes`` and scikit-learn's ``GaussianNB`` on
   scikit-learn's bundled iris, wine and breast cancer (digits is left out: pixels
   constant within a class have no class-conditional density, which the TANs refuse) (numbers only: ``MixedTAN(var_smoothing=0)`` there is
   ``GaussianTAN``; the default smoothing, ``GaussianNB``'s, moves features of tiny scale),
   and on a synthetic mixed table (3 categorical + 6 numeric features depending on each
   other, the class shifting one of them; 3,000 rows), where only the TAN models the
   features' dependence, and on skewed/multimodal numbers of known law (``skewed_classes``:
   1,500 rows, 3 classes; the Bayes rule's accuracy on 20,000 fresh rows is the ceiling).

5. Skewed and multimodal numbers (6 columns: an exponential, its square root with noise,
   a two-mode mixture shifted by it, a gamma, a ring-like pair, 2,000 training rows and
   2,000 held out; ``--quick``: 1,000): held-out log-likelihood per row of
   ``tl.kernel_forest`` (Liu et al. 2011), ``tl.gaussian_chow_liu`` and
   ``tl.copula_chow_liu``, the kernel forest's fit CPU time, and its scoring of 500
   held-out rows with 20% of the cells missing (integrated out) against complete rows.

BLAS pinned to one thread.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import networkx as nx
import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import machine, pin_blas, print_table, row, write_json

import treelearn as tl

BENCH = "mixed_trees"


def true_model(n_discrete: int = 20, n_numeric: int = 20, k: int = 3, seed: int = 0):
    """A random CLG tree: discrete columns in a random tree, each number under a random
    earlier column (discrete or numeric)."""
    rng = np.random.default_rng(seed)
    dnames = [f"d{i}" for i in range(n_discrete)]
    xnames = [f"x{j}" for j in range(n_numeric)]
    D = nx.DiGraph()
    for i, v in enumerate(dnames):
        if i == 0:
            D.add_node(v, states=list(range(k)), cpt=rng.dirichlet(np.ones(k)))
        else:
            p = dnames[rng.integers(0, i)]
            D.add_node(v, states=list(range(k)), cpt=rng.dirichlet(np.full(k, 0.5), size=k))
            D.add_edge(p, v)
    discrete = tl.TreeModel(D, variables=dnames, dtypes=dict.fromkeys(dnames, np.dtype("int64")))
    G = nx.DiGraph()
    G.add_nodes_from(dnames + xnames)
    G.add_edges_from(D.edges)
    for j, v in enumerate(xnames):
        pool = dnames + xnames[:j]
        p = pool[rng.integers(0, len(pool))] if j else dnames[rng.integers(0, n_discrete)]
        G.add_edge(p, v)
        if p in dnames:
            G.nodes[v].update(
                means=rng.normal(0, 2, k).tolist(), variances=rng.uniform(0.3, 1.5, k).tolist()
            )
        else:
            G.nodes[v].update(
                intercept=float(rng.normal()),
                coefficient=float(rng.uniform(-1.5, 1.5)),
                variance=float(rng.uniform(0.3, 1.5)),
            )
    return (
        tl.CLGTreeModel(
            G, discrete, variables=dnames + xnames, continuous=xnames, dtypes=discrete.dtypes
        ),
        dnames,
        xnames,
    )


def cpu_best(fn, repeat: int):
    best, result = np.inf, None
    for _ in range(repeat):
        t = time.process_time()
        result = fn()
        best = min(best, time.process_time() - t)
    return best, result


def binned(train: pd.DataFrame, test: pd.DataFrame, numbers: list, bins: int = 5):
    """Both tables with each number cut at the training quantiles, and each held-out
    cell's log bin width."""
    out_train, out_test = train.copy(), test.copy()
    log_width = np.zeros(len(test))
    for c in numbers:
        edges = np.quantile(train[c], np.linspace(0, 1, bins + 1))
        inner = edges[1:-1]
        out_train[c] = np.digitize(train[c], inner)
        codes = np.digitize(np.clip(test[c], edges[0], edges[-1]), inner)
        out_test[c] = codes
        log_width += np.log(np.diff(edges))[codes]
    return out_train, out_test, log_width


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json")
    args = parser.parse_args()
    print(pin_blas(1))
    print(machine())
    n, n_test = (10_000, 5_000) if args.quick else (100_000, 20_000)
    repeat = 1 if args.quick else 3
    truth, dnames, xnames = true_model()
    data = truth.sample(n + n_test, random_state=0)
    train, test = data.iloc[:n], data.iloc[n:].reset_index(drop=True)
    case = f"{n:,} rows, {len(dnames)} discrete + {len(xnames)} numeric"

    t_clg, clg = cpu_best(lambda: tl.clg_tree(train, numeric=xnames), repeat)
    disc_train, disc_test, log_width = binned(train, test, xnames)
    t_disc, disc = cpu_best(lambda: tl.chow_liu(disc_train), repeat)
    ratio = t_clg / t_disc
    rows = [
        row(BENCH, case, "CLG tree fit (clg_tree)", t_clg, "s CPU"),
        row(
            BENCH,
            case,
            "chow_liu on the discretized table",
            t_disc,
            "s CPU",
            note="5 quantile bins per number",
        ),
        row(BENCH, case, "CLG / discretized", ratio, "x", "<= 3", ratio <= 3),
    ]

    ll_clg = clg.score(test)
    ll_true = truth.score(test)
    blocks = tl.chow_liu(train[dnames]).log_likelihood(
        test[dnames], per_row=True
    ) + tl.gaussian_chow_liu(train[xnames]).log_likelihood(test[xnames], per_row=True)
    ll_disc = disc.log_likelihood(disc_test, per_row=True) - log_width
    held = f"{n_test:,} held-out rows"
    rows += [
        row(BENCH, held, "CLG tree: log-likelihood per row", ll_clg, "nats"),
        row(
            BENCH,
            held,
            "discrete tree + Gaussian tree (no cross-kind edge)",
            float(blocks.mean()),
            "nats",
        ),
        row(
            BENCH,
            held,
            "discretized tree (bins as uniform densities)",
            float(ll_disc.mean()),
            "nats",
            note="5 quantile bins per number",
        ),
        row(BENCH, held, "true model", ll_true, "nats"),
        row(
            BENCH,
            held,
            "CLG beats both",
            float(ll_clg - max(blocks.mean(), ll_disc.mean())),
            "nats/row",
            "> 0",
            bool(ll_clg > max(blocks.mean(), ll_disc.mean())),
        ),
    ]

    rng = np.random.default_rng(1)
    holes = test.mask(rng.random(test.shape) < 0.3)
    holes[dnames] = holes[dnames].astype("Int64")
    t_score, scores = cpu_best(lambda: clg.score_samples(holes), repeat)
    t_post, _ = cpu_best(lambda: clg.posterior(holes, "d3"), repeat)
    rows += [
        row(
            BENCH,
            held,
            "score_samples, 30% cells missing",
            t_score,
            "s CPU",
            note=f"mean {float(scores.mean()):.3f} nats",
        ),
        row(BENCH, held, "posterior of d3 given the rest", t_post, "s CPU"),
    ]
    rows += accuracy_rows(args.quick)
    rows += kernel_forest_rows(args.quick)
    print_table(rows)
    write_json(rows, args.json)


def synthetic_mixed(n: int = 3000, seed: int = 0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    a = np.where(rng.random(n) < 0.6, y, rng.integers(0, 3, n))
    b = (a + rng.integers(0, 2, n)) % 3
    c = rng.integers(0, 2, n)
    x0 = rng.normal(b - 1.0, 1.0)
    x1 = x0 + rng.normal(0.4 * y, 0.4)
    x2 = rng.normal(x1, 1.0) * (1 + c)
    x3 = rng.normal(size=n)
    x4 = x3 + rng.normal(0.3 * (y == 2), 0.3)
    x5 = rng.normal(x4, 1.0)
    X = pd.DataFrame(
        {"a": a, "b": b, "c": c, "x0": x0, "x1": x1, "x2": x2, "x3": x3, "x4": x4, "x5": x5}
    )
    return X, y


_RHO = np.array([0.2, 0.6, 0.9])  # the copula's correlation of (x1, x2) in each class


def skewed_classes(n: int, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    """Three classes, five numbers of known law: ``x0`` bimodal (its modes close in as the
    class grows), ``x1`` lognormal, ``x2 = sinh`` of a normal correlated with ``log x1`` by
    ``_RHO[y]``, ``x3`` lognormal, and ``x4 ~ N(0.8 x0, (1 + 0.5 y)^2)``."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    x0 = rng.normal(np.where(rng.random(n) < 0.5, -2 + 0.7 * y, 2 - 0.7 * y), 0.5)
    z1 = rng.normal(size=n)
    x1 = np.exp(0.3 * y + 0.6 * z1)
    x2 = np.sinh(_RHO[y] * z1 + np.sqrt(1 - _RHO[y] ** 2) * rng.normal(size=n))
    x3 = np.exp(rng.normal(0.2 * y, 0.5))
    x4 = rng.normal(0.8 * x0, 1 + 0.5 * y)
    return pd.DataFrame({"x0": x0, "x1": x1, "x2": x2, "x3": x3, "x4": x4}), y


def skewed_classes_log_density(X: pd.DataFrame) -> np.ndarray:
    """``log p(x | y)`` of :func:`skewed_classes`' law, ``n x 3`` (closed form)."""
    from scipy import stats

    out = np.empty((len(X), 3))
    x0, x1, x2, x3, x4 = (X[c].to_numpy() for c in X.columns)
    for c in range(3):
        z1 = (np.log(x1) - 0.3 * c) / 0.6
        a = np.arcsinh(x2)
        out[:, c] = (
            np.logaddexp(
                stats.norm.logpdf(x0, -2 + 0.7 * c, 0.5), stats.norm.logpdf(x0, 2 - 0.7 * c, 0.5)
            )
            + np.log(0.5)
            + stats.norm.logpdf(z1)
            - np.log(0.6 * x1)
            + stats.norm.logpdf(a, _RHO[c] * z1, np.sqrt(1 - _RHO[c] ** 2))
            - 0.5 * np.log1p(x2**2)
            + stats.norm.logpdf(np.log(x3), 0.2 * c, 0.5)
            - np.log(x3)
            + stats.norm.logpdf(x4, 0.8 * x0, 1 + 0.5 * c)
        )
    return out


def accuracy_rows(quick: bool) -> list:
    from sklearn.datasets import load_breast_cancer, load_iris, load_wine
    from sklearn.model_selection import StratifiedKFold, cross_val_score
    from sklearn.naive_bayes import GaussianNB

    folds = StratifiedKFold(10, shuffle=True, random_state=0)
    sets = {
        "synthetic mixed (3 cat + 6 num)": synthetic_mixed(1000 if quick else 3000),
        "synthetic skewed/multimodal (5 num)": skewed_classes(600 if quick else 1500),
    }
    for name, load in (
        ("iris", load_iris),
        ("wine", load_wine),
        ("breast cancer", load_breast_cancer),
    ):
        X, y = load(return_X_y=True, as_frame=True)
        sets[name] = (X, y.to_numpy())
    rows = []
    for name, (X, y) in sets.items():
        numeric = [c for c in X.columns if X[c].dtype.kind == "f"]
        scores = {}
        models = {"MixedTAN": tl.MixedTAN(), "MixedNaiveBayes": tl.MixedNaiveBayes()}
        if len(numeric) == X.shape[1]:
            models.update(
                CopulaTAN=tl.CopulaTAN(),
                KernelTAN=tl.KernelTAN(random_state=0),
                GaussianTAN=tl.GaussianTAN(),
                GaussianNB=GaussianNB(),
            )
        for label, model in models.items():
            start = time.process_time()
            scores[label] = float(cross_val_score(model, X, y, cv=folds).mean())
            rows.append(
                row(
                    BENCH,
                    f"{name}, 10-fold CV",
                    f"{label} accuracy",
                    scores[label],
                    "",
                    note=f"{time.process_time() - start:.1f} s CPU for the 10 folds",
                )
            )
        best_other = max(v for k, v in scores.items() if k != "MixedTAN")
        rows.append(
            row(
                BENCH,
                f"{name}, 10-fold CV",
                "MixedTAN - best other",
                scores["MixedTAN"] - best_other,
                "",
                note="numbers only: MixedTAN(var_smoothing=0) is GaussianTAN; "
                "the default 1e-9 x the largest variance moves features of tiny scale"
                if "GaussianTAN" in scores
                else "GaussianTAN/GaussianNB need numbers only",
            )
        )
    # the Bayes rule of the known law: the best accuracy any classifier can have there
    X, y = skewed_classes(20_000, seed=1)
    bayes = float((skewed_classes_log_density(X).argmax(axis=1) == y).mean())
    rows.append(
        row(
            BENCH,
            "synthetic skewed/multimodal (5 num), 10-fold CV",
            "Bayes rule (the true law) accuracy",
            bayes,
            "",
            note="20,000 fresh rows, uniform classes",
        )
    )
    return rows


def skewed_multimodal(n: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    e = rng.exponential(size=n)
    r = np.sqrt(e) + 0.2 * rng.normal(size=n)
    m = np.where(rng.random(n) < 0.5, -3.0, 3.0) + r + 0.5 * rng.normal(size=n)
    g = rng.gamma(2.0, size=n) + 0.5 * e
    angle = rng.uniform(0, 2 * np.pi, n)
    u = 2 * np.cos(angle) + 0.2 * rng.normal(size=n)
    v = 2 * np.sin(angle) + 0.2 * rng.normal(size=n)
    return pd.DataFrame({"e": e, "r": r, "m": m, "g": g, "u": u, "v": v})


def kernel_forest_rows(quick: bool) -> list:
    n = 1000 if quick else 2000
    data = skewed_multimodal(2 * n)
    train, test = data.iloc[:n], data.iloc[n:]
    t_fit, kernel = cpu_best(lambda: tl.kernel_forest(train, random_state=0), 1)
    case = f"skewed/multimodal, {n:,} train + {n:,} held-out rows, 6 numbers"
    ll = {
        "kernel forest (kernel_forest)": kernel.score(test),
        "Gaussian tree (gaussian_chow_liu)": tl.gaussian_chow_liu(train).log_likelihood(test)
        / len(test),
        "copula tree (copula_chow_liu)": tl.copula_chow_liu(train).score(test),
    }
    rows = [
        row(BENCH, case, f"{label}: log-likelihood per row", value, "nats")
        for label, value in ll.items()
    ]
    best_other = max(v for k, v in ll.items() if not k.startswith("kernel"))
    rows += [
        row(
            BENCH,
            case,
            "kernel forest - best other",
            ll["kernel forest (kernel_forest)"] - best_other,
            "nats/row",
            "> 0",
            bool(ll["kernel forest (kernel_forest)"] > best_other),
            note=f"{len(kernel.edges)} of 5 edges kept",
        ),
        row(BENCH, case, "kernel forest fit", t_fit, "s CPU", note="one run"),
    ]
    # missing cells integrated out: leaves in closed form, nodes between observed cells by
    # quadrature (rows x grid x kernels per edge to an observed neighbour)
    holes = test.iloc[:500].mask(np.random.default_rng(1).random((500, test.shape[1])) < 0.2)
    t_holes, scores = cpu_best(lambda: kernel.score_samples(holes), 1)
    t_full, _ = cpu_best(lambda: kernel.score_samples(test.iloc[:500]), 1)
    rows += [
        row(
            BENCH,
            case,
            "kernel forest score_samples, 500 rows, 20% cells missing",
            t_holes,
            "s CPU",
            note=f"complete rows: {t_full:.3f} s; mean {float(scores.mean()):.3f} nats",
        )
    ]
    return rows


if __name__ == "__main__":
    main()
