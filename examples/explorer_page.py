"""The explorer: a model as an interactive page
============================================

``model.to_html(path)`` writes one self-contained HTML file (no network needed): the
tree drawn as ``draw()`` draws it, every variable's marginal beside it. Click a state to
set it as evidence; every marginal is recomputed exactly in the page. Below, the Chow-Liu
tree of ``asia`` with ``smoke = yes`` preset in the page's address (``#smoke=yes``).

From the shell::

    python examples/explorer_page.py [--out DIR]
"""

import argparse
import os

import pandas as pd

import treelearn as tl

# this script's folder (the docs' gallery runs it from there, without __file__)
HERE = os.path.dirname(os.path.abspath(globals().get("__file__", "explorer_page.py")))
parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
parser.add_argument(
    "--out",
    # the docs copy this folder into the site (html_extra_path), so the page below embeds it
    default=os.path.join(HERE, "..", "docs", "_explorer"),
    help="folder for the page (default: docs/_explorer, git-ignored)",
)
args = parser.parse_args()

df = pd.read_csv(os.path.join(HERE, "..", "datasets", "asia.csv"))
model = tl.chow_liu(df)
os.makedirs(args.out, exist_ok=True)
path = os.path.join(args.out, "asia_explorer.html")
model.to_html(path)
print("wrote", path, os.path.getsize(path), "bytes")
# the page shows the same exact marginals the model computes
print(model.query(["lung"], evidence={"smoke": "yes"}).round(4))

# %%
# The page, embedded
# ------------------
#
# .. raw:: html
#
#     <iframe src="../asia_explorer.html#smoke=yes" width="100%" height="620"
#             style="border: 1px solid #ccc" title="The explorer on asia"></iframe>
