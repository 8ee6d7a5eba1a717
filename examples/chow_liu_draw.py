"""Learn a Chow-Liu tree from a CSV file and draw it
=================================================

The tree is the maximum-likelihood tree-shaped Bayesian network: the maximum
spanning tree of the pairwise mutual information, rooted at the first column.
The script prints the tree as indented text (MI on each edge), its
log-likelihood and BIC, and saves a picture in which edge width follows the MI.

From the shell::

    python examples/chow_liu_draw.py [DATA.csv] [--out DIR] [--root COLUMN]
"""

import argparse
import os

import matplotlib

matplotlib.use("Agg")  # write files; no window needed

import pandas as pd

import treelearn as tl

# this script's folder (the docs' gallery runs it from there, without __file__)
HERE = os.path.dirname(os.path.abspath(globals().get("__file__", "chow_liu_draw.py")))

parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
parser.add_argument("data", nargs="?", default=os.path.join(HERE, "..", "datasets", "asia.csv"))
parser.add_argument(
    "--out",
    default=os.path.join(HERE, "..", "out"),
    help="folder for the pictures (default: out/ in the repository, git-ignored)",
)
parser.add_argument("--root", default=None, help="root of the tree (default: first column)")
args = parser.parse_args()

df = pd.read_csv(args.data)
model = tl.chow_liu(df, root=args.root)
print(model)  # the indented text tree
print(f"log-likelihood {model.log_likelihood(df):.2f} nats, BIC {model.bic(df):.2f}")

fig = model.draw(edge_labels=True, title=True, data=df)  # a matplotlib Figure
os.makedirs(args.out, exist_ok=True)
matplotlib.rcParams["pdf.fonttype"] = 42  # TrueType fonts in the PDF, as journals ask
for ext in ("png", "pdf"):  # raster for slides, vector for papers
    path = os.path.join(args.out, f"chow_liu_tree.{ext}")
    fig.savefig(path, dpi=200, bbox_inches="tight")
    print("wrote", path)
