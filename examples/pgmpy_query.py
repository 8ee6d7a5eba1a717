"""Export a learned tree to pgmpy and ask it a query
=================================================

treelearn answers exact queries itself (``model.query``); this script hands the
model to pgmpy as a ``DiscreteBayesianNetwork`` with labelled ``TabularCPD`` s
and asks pgmpy's variable elimination the same question, to show that the two
agree and that the whole pgmpy toolbox is available on a learned tree.

From the shell::

    python examples/pgmpy_query.py [DATA.csv] [--target lung] [--given smoke=yes ...]
"""

import argparse
import os
import warnings

import numpy as np
import pandas as pd

import treelearn as tl

# this script's folder (the docs' gallery runs it from there, without __file__)
HERE = os.path.dirname(os.path.abspath(globals().get("__file__", "pgmpy_query.py")))

parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
parser.add_argument("data", nargs="?", default=os.path.join(HERE, "..", "datasets", "asia.csv"))
parser.add_argument("--target", default="lung")
parser.add_argument("--given", nargs="*", default=["smoke=yes"], metavar="COL=VALUE")
parser.add_argument("--out", default=None, help="also write the network as BIF into this folder")
args = parser.parse_args()

df = pd.read_csv(args.data)
model = tl.chow_liu(df, alpha=1.0)  # Laplace smoothing: no zero probabilities


def state(column, text):
    """The state that ``text`` names: pgmpy wants it typed (e.g. True or 3, not "True" or "3")."""
    matches = [s for s in model.states[column] if str(s) == text]
    return matches[0] if len(matches) == 1 else text


evidence = {col: state(col, text) for col, text in (item.split("=", 1) for item in args.given)}

bn = model.to_pgmpy()
assert bn.check_model()

with warnings.catch_warnings():
    warnings.simplefilter("ignore", FutureWarning)  # pgmpy deprecation notices
    from pgmpy.inference import VariableElimination

    answer = VariableElimination(bn).query([args.target], evidence=evidence, show_progress=False)
print(f"pgmpy:     P({args.target} | {evidence})")
print(answer)

ours = model.query(args.target, evidence=evidence)
print(f"treelearn: P({args.target} | {evidence})")
print(ours.to_string())
pgmpy_values = [answer.get_value(**{args.target: s}) for s in ours.index]
assert np.allclose(ours.to_numpy(), pgmpy_values), "pgmpy and treelearn disagree"
print("the two answers agree")

if args.out:
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "model.bif")
    model.to_bif(path)
    print("wrote", path)
