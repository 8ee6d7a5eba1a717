"""Classifiers: cross-validated accuracy on real data, and speed on 100,000 alarm rows.

    .venv/bin/python benchmarks/bench_classify.py [--quick] [--pgmpy-rows N] [--skip-accuracy]
                                                  [--skip-speed] [--json PATH]

1. **Accuracy**: 10-fold stratified cross-validation (the same folds for every
   classifier, ``random_state=0``) of ``tl.NaiveBayes``, ``tl.TAN`` and
   ``tl.ChowLiuMultinet`` (all ``alpha=1``) next to scikit-learn's
   ``CategoricalNB(alpha=1)`` on

   * ``load_digits`` (scikit-learn): 1,797 images, 64 pixels with values 0..16
     taken as 17 categories (declared for every pixel, so a value absent from a
     training fold is still a state), 10 classes;
   * ``fair`` (statsmodels, bundled offline; Fair 1978, the 1974 Redbook survey
     of 6,366 women): 8 ordinal survey answers (rating of the marriage, age band,
     years married, children, religiousness, education, occupation, husband's
     occupation), all few-valued and declared as categories; class = "had an
     affair" (``affairs > 0``);
   * ``load_breast_cancer`` and ``load_wine`` (scikit-learn), numeric, cut into 5
     quantile bins **inside each training fold** (``KBinsDiscretizer`` in a
     ``Pipeline``), so no test row shapes the bins.

   CategoricalNB gets the same features ordinal-encoded with ``min_categories``
   set to each feature's number of categories, so both count the same states.

2. **Speed**: fit + ``predict_proba`` on 100,000 rows forward-sampled from
   pgmpy's ``alarm`` network (seed 0, cached), class ``HYPOVOLEMIA``, 36 text
   features: treelearn from the text DataFrame and from the integer-coded one,
   CategoricalNB on the integer codes (and with ``OrdinalEncoder`` in front, from
   text), and pgmpy ``TreeSearch(df, root_node=<first feature>, n_jobs=1)
   .estimate("tan", class_node="HYPOVOLEMIA")`` for TAN structure learning.
   treelearn's TAN time is the **whole fit** (encoding, class-wise counts,
   conditional MI, spanning tree, CPTs), compared with pgmpy's structure only.
   pgmpy is slow (minutes at 100,000 rows); ``--pgmpy-rows N`` times it on the
   first N rows instead, and the output says so.

BLAS is pinned to one thread (threadpoolctl) and the script prints that.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import alarm_sample, machine, pin_blas, print_table, row, timeit, write_json

import treelearn as tl
from treelearn.sources._count import count_by_class
from treelearn.stats._information import conditional_mutual_information_matrix
from treelearn.structure._trees import spanning_skeleton

BENCH = "classify"
CLASS = "HYPOVOLEMIA"


# ---------------------------------------------------------------------- accuracy
def categorical_frame(X: pd.DataFrame) -> pd.DataFrame:
    """Every column as a pandas Categorical over the values seen in the whole data (label-free)."""
    return pd.DataFrame({c: pd.Categorical(X[c], categories=sorted(X[c].unique())) for c in X})


def datasets() -> dict:
    from sklearn.datasets import load_breast_cancer, load_digits, load_wine

    out = {}
    digits = load_digits()
    X = pd.DataFrame(digits.data.astype(int), columns=[f"px{j}" for j in range(64)])
    X = pd.DataFrame({c: pd.Categorical(X[c], categories=range(17)) for c in X})
    out["digits"] = (X, pd.Series(digits.target, name="digit"), None)

    import statsmodels.api as sm

    fair = sm.datasets.fair.load_pandas().data
    y = pd.Series(np.where(fair["affairs"] > 0, "yes", "no"), name="affair")
    out["fair"] = (categorical_frame(fair.drop(columns="affairs")), y, None)

    for name, loader in [("breast_cancer", load_breast_cancer), ("wine", load_wine)]:
        data = loader()
        X = pd.DataFrame(data.data, columns=[f"v{j}" for j in range(data.data.shape[1])])
        out[name] = (X, pd.Series(data.target, name="target"), 5)  # 5 quantile bins per fold
    return out


def accuracy_rows(folds: int) -> list[dict]:
    from sklearn.model_selection import StratifiedKFold, cross_val_score
    from sklearn.naive_bayes import CategoricalNB
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import KBinsDiscretizer, OrdinalEncoder

    rows = []
    cv = StratifiedKFold(n_splits=folds, shuffle=True, random_state=0)
    for name, (X, y, bins) in datasets().items():
        if bins is None:
            cards = [len(X[c].cat.categories) for c in X]
            enc = OrdinalEncoder(categories=[list(X[c].cat.categories) for c in X])
            candidates = {
                "NaiveBayes": tl.NaiveBayes(numbers="states", unseen="ignore"),
                "TAN": tl.TAN(numbers="states", unseen="ignore"),
                "ChowLiuMultinet": tl.ChowLiuMultinet(numbers="states", unseen="ignore"),
                "sklearn CategoricalNB": make_pipeline(
                    enc, CategoricalNB(alpha=1.0, min_categories=cards)
                ),
            }
        else:

            def kbins(bins: int = bins) -> KBinsDiscretizer:
                return KBinsDiscretizer(
                    n_bins=bins,
                    encode="ordinal",
                    strategy="quantile",
                    quantile_method="averaged_inverted_cdf",
                )

            candidates = {
                "NaiveBayes": make_pipeline(
                    kbins(), tl.NaiveBayes(numbers="states", unseen="ignore")
                ),
                "TAN": make_pipeline(kbins(), tl.TAN(numbers="states", unseen="ignore")),
                "ChowLiuMultinet": make_pipeline(
                    kbins(), tl.ChowLiuMultinet(numbers="states", unseen="ignore")
                ),
                "sklearn CategoricalNB": make_pipeline(
                    kbins(), CategoricalNB(alpha=1.0, min_categories=bins)
                ),
            }
        case = f"{name} (n={len(X)}, d={X.shape[1]}, {y.nunique()} classes)"
        for label, est in candidates.items():
            t = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                scores = cross_val_score(est, X, y, cv=cv, n_jobs=1)
            seconds = time.perf_counter() - t
            rows.append(
                row(
                    BENCH,
                    case,
                    f"{folds}-fold accuracy: {label}",
                    float(scores.mean()),
                    note=f"sd {scores.std():.3f}; {seconds:.1f} s",
                )
            )
            print(
                f"  {case:45s} {label:22s} {scores.mean():.4f} +- {scores.std():.3f}  ({seconds:.1f} s)",
                file=sys.stderr,
            )
    return rows


# ---------------------------------------------------------------------- speed
def tan_structure_only(X: pd.DataFrame, y: pd.Series, root=None):
    """What pgmpy's TreeSearch('tan') does: encode, class-wise counts, conditional MI, tree, DAG."""
    stats = count_by_class(X, y)
    d = len(stats.columns) - 1
    cmi = conditional_mutual_information_matrix(stats.per_class)[:d, :d]
    tree = spanning_skeleton(list(stats.columns[:d]), cmi, stats.states[:d])
    return tl.tan_structure(tree, stats.columns[-1], stats.columns[0] if root is None else root)


def speed_rows(n: int, pgmpy_rows: int, repeat: int, cache_dir: str) -> list[dict]:
    from sklearn.naive_bayes import CategoricalNB
    from sklearn.preprocessing import OrdinalEncoder

    df = alarm_sample(n, cache_dir)
    X, y = df.drop(columns=CLASS), df[CLASS]
    X_int = pd.DataFrame(
        {c: pd.factorize(X[c], sort=True)[0] for c in X}
    )  # the codes CategoricalNB needs
    cards = [int(X_int[c].max()) + 1 for c in X_int]
    Z = X_int.to_numpy()
    case = f"alarm n={n:,}, class {CLASS}, {X.shape[1]} features"
    rows = []

    def fit_predict(make, XX):
        return lambda: make().fit(XX, y).predict_proba(XX)

    times = {}
    runs = {
        # class_arcs="all": CategoricalNB's model, the plain Lidstone CPTs
        "treelearn NaiveBayes (text DataFrame)": fit_predict(
            lambda: tl.NaiveBayes(numbers="states", class_arcs="all"), X
        ),
        "treelearn NaiveBayes (integer DataFrame)": fit_predict(
            lambda: tl.NaiveBayes(numbers="states", class_arcs="all"), X_int
        ),
        "sklearn CategoricalNB (integer array)": fit_predict(
            lambda: CategoricalNB(alpha=1.0, min_categories=cards), Z
        ),
        "sklearn OrdinalEncoder + CategoricalNB (text)": lambda: (
            CategoricalNB(alpha=1.0, min_categories=cards)
            .fit((E := OrdinalEncoder().fit(X)).transform(X), y)
            .predict_proba(E.transform(X))
        ),
        "treelearn TAN (text DataFrame)": fit_predict(lambda: tl.TAN(numbers="states"), X),
        "treelearn ChowLiuMultinet (text DataFrame)": fit_predict(tl.ChowLiuMultinet, X),
    }
    for label, fn in runs.items():
        t = timeit(fn, repeat=repeat)
        times[label] = t["best"]
        rows.append(
            row(
                BENCH,
                case,
                f"fit + predict_proba: {label}",
                t["best"],
                "s",
                note=f"best of {t['runs']}, median {t['median']:.3f}",
            )
        )
        print(f"  {label:50s} {t['best']:.3f} s (median {t['median']:.3f})", file=sys.stderr)
    # same input for both: the target; text vs pre-coded integers: for information only
    for ours, theirs, target in [
        ("treelearn NaiveBayes (integer DataFrame)", "sklearn CategoricalNB (integer array)", True),
        (
            "treelearn NaiveBayes (text DataFrame)",
            "sklearn OrdinalEncoder + CategoricalNB (text)",
            True,
        ),
        ("treelearn NaiveBayes (text DataFrame)", "sklearn CategoricalNB (integer array)", False),
    ]:
        ratio = times[ours] / times[theirs]
        rows.append(
            row(
                BENCH,
                case,
                f"{ours} / {theirs}",
                ratio,
                "x",
                "<= 2" if target else "",
                ratio <= 2 if target else None,
            )
        )

    tan_fit = timeit(lambda: tl.TAN(numbers="states").fit(X, y), repeat=repeat)
    rows.append(
        row(
            BENCH,
            case,
            "treelearn TAN fit (structure + CPTs)",
            tan_fit["best"],
            "s",
            note=f"best of {tan_fit['runs']}",
        )
    )
    tan_structure = timeit(lambda: tan_structure_only(X, y), repeat=repeat)
    rows.append(
        row(
            BENCH,
            case,
            "treelearn TAN structure only (encode, counts, CMI, tree)",
            tan_structure["best"],
            "s",
            note=f"best of {tan_structure['runs']}",
        )
    )
    print(
        f"  treelearn TAN fit {tan_fit['best']:.3f} s, structure only {tan_structure['best']:.3f} s",
        file=sys.stderr,
    )

    if pgmpy_rows:
        from pgmpy.estimators import TreeSearch

        sub = df.iloc[:pgmpy_rows]
        root = X.columns[0]
        print(
            f"  pgmpy TreeSearch tan on {len(sub):,} rows (root {root!r}, n_jobs=1)...",
            file=sys.stderr,
        )
        t = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            dag = TreeSearch(sub, root_node=root, n_jobs=1).estimate(
                "tan", class_node=CLASS, show_progress=False
            )
        pgmpy_s = time.perf_counter() - t
        ours = tl.TAN(numbers="states", root=root).fit(sub.drop(columns=CLASS), sub[CLASS])
        same = set(ours.model_.graph.edges) == set(dag.edges())
        Xs, ys = sub.drop(columns=CLASS), sub[CLASS]
        tl_fit = timeit(lambda: tl.TAN(numbers="states", root=root).fit(Xs, ys), repeat=repeat)
        tl_structure = timeit(lambda: tan_structure_only(Xs, ys, root), repeat=repeat)
        scope = f"{len(sub):,} rows" + (
            "" if len(sub) == n else f" (--pgmpy-rows; not the full {n:,})"
        )
        rows.append(
            row(
                BENCH,
                case,
                f"pgmpy TreeSearch('tan') structure, {scope}",
                pgmpy_s,
                "s",
                note="one run",
            )
        )
        rows.append(
            row(BENCH, case, f"treelearn TAN structure only, {scope}", tl_structure["best"], "s")
        )
        rows.append(row(BENCH, case, f"treelearn TAN whole fit, {scope}", tl_fit["best"], "s"))
        speedup = pgmpy_s / tl_structure["best"]
        rows.append(
            row(
                BENCH,
                case,
                f"TAN structure speed-up over pgmpy, {scope}",
                speedup,
                "x",
                ">= 200",
                speedup >= 200,
                note=f"same TAN edges as pgmpy: {same}",
            )
        )
        whole = pgmpy_s / tl_fit["best"]
        rows.append(
            row(
                BENCH,
                case,
                f"pgmpy structure / treelearn whole TAN fit, {scope}",
                whole,
                "x",
                note="treelearn also fits the CPTs here",
            )
        )
        print(
            f"  pgmpy {pgmpy_s:.1f} s, treelearn structure {tl_structure['best']:.3f} s (x{speedup:.0f}), "
            f"whole fit {tl_fit['best']:.3f} s (x{whole:.0f}), same edges {same}",
            file=sys.stderr,
        )
    return rows


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--quick", action="store_true", help="10,000 alarm rows, 3 folds, pgmpy on 2,000 rows"
    )
    parser.add_argument("--rows", type=int, default=100_000, help="alarm rows for the speed part")
    parser.add_argument(
        "--pgmpy-rows",
        type=int,
        default=None,
        help="rows for pgmpy's TAN (default: all of --rows; 0 skips pgmpy)",
    )
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip-accuracy", action="store_true")
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument(
        "--cache-dir", default=os.environ.get("TREELEARN_BENCH_CACHE", "/tmp/treelearn-bench")
    )
    parser.add_argument("--json", default=None, help="also write the result rows as JSON here")
    args = parser.parse_args(argv)
    print(pin_blas(1))
    print(machine())
    n = 10_000 if args.quick else args.rows
    pgmpy_rows = args.pgmpy_rows if args.pgmpy_rows is not None else (2_000 if args.quick else n)
    rows = []
    if not args.skip_accuracy:
        rows += accuracy_rows(3 if args.quick else 10)
    if not args.skip_speed:
        rows += speed_rows(n, min(pgmpy_rows, n), args.repeat, args.cache_dir)
    print_table(rows)
    write_json(rows, args.json)


if __name__ == "__main__":
    main()
