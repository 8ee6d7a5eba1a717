"""Every treelearn classifier side by side: ROC curves on held-out rows
====================================================================

The breast-cancer data bundled with scikit-learn (30 numeric measurements) is cut
into quantile bins by ``tl.Discretizer`` inside each pipeline (learned on the training
rows only), then each classifier -- naive Bayes, TAN, k-DB, AODE, A2DE, selective
k-DB (SKDB), weighted naive Bayes (WANBIA) -- is fitted and its ROC curve drawn with
scikit-learn's ``RocCurveDisplay``; the legend gives each one's area under the curve.

From the shell::

    python examples/compare_classifiers_roc.py [--bins 5] [--out FOLDER]
"""

import argparse
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd
from sklearn.datasets import load_breast_cancer
from sklearn.metrics import RocCurveDisplay, log_loss
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline

import treelearn as tl

# this script's folder (the docs' gallery runs it from there, without __file__)
HERE = os.path.dirname(os.path.abspath(globals().get("__file__", "compare_classifiers_roc.py")))

parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
parser.add_argument("--bins", type=int, default=5)
parser.add_argument(
    "--out",
    default=os.path.join(HERE, "..", "out"),
    help="folder for the picture (default: out/ in the repository, git-ignored)",
)
args = parser.parse_args()

data = load_breast_cancer()
X = pd.DataFrame(data.data, columns=[f"v{j}" for j in range(data.data.shape[1])])
y = pd.Series(data.target, name="benign")
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)

classifiers = {
    "naive Bayes": tl.NaiveBayes(),
    "TAN": tl.TAN(),
    "k-DB (k=2)": tl.KDB(k=2),
    "AODE": tl.AODE(),
    "A2DE": tl.AnDE(n=2),
    "SKDB": tl.SKDB(max_k=2),
    "WANBIA": tl.WeightedNaiveBayes(),
    "TAN (fCLL)": tl.TAN(criterion="fcll"),
    "ETAN": tl.ETAN(),
    "TAN (super-parent)": tl.TANSuperParent(random_state=0),
    "AWNB": tl.AWNB(random_state=0),
    "MANB": tl.MANB(),
}
fig, ax = plt.subplots(figsize=(6, 6))
for name, clf in classifiers.items():
    pipe = make_pipeline(tl.Discretizer(bins=args.bins), clf).fit(X_train, y_train)
    RocCurveDisplay.from_estimator(pipe, X_test, y_test, name=name, ax=ax)
    loss = log_loss(y_test, pipe.predict_proba(X_test))
    print(f"{name:18s} accuracy {pipe.score(X_test, y_test):.3f}  log-loss {loss:.3f}")
ax.plot([0, 1], [0, 1], linestyle=":", color="grey")
ax.set_title("Breast cancer, held-out 30%")
os.makedirs(args.out, exist_ok=True)
fig.savefig(os.path.join(args.out, "roc_curves.png"), dpi=100, bbox_inches="tight")
print("wrote", os.path.join(args.out, "roc_curves.png"))
