"""Learn, save, load and sample
============================

A model is saved as versioned JSON (states with their types, structure, CPTs,
MI weights, learning settings) and loads back exactly. Sampling from it gives a
DataFrame with the original column order, labels and dtypes; here the synthetic
rows are checked against the data by their average log-likelihood.

From the shell::

    python examples/save_load_sample.py [DATA.csv] [--out DIR] [-n 1000]
"""

import argparse
import os

import pandas as pd

import treelearn as tl

# this script's folder (the docs' gallery runs it from there, without __file__)
HERE = os.path.dirname(os.path.abspath(globals().get("__file__", "save_load_sample.py")))

parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
parser.add_argument("data", nargs="?", default=os.path.join(HERE, "..", "datasets", "asia.csv"))
parser.add_argument(
    "--out",
    default=os.path.join(HERE, "..", "out"),
    help="folder for model.json and samples.csv (default: out/ in the repository)",
)
parser.add_argument("-n", type=int, default=1000, help="rows to sample")
args = parser.parse_args()

df = pd.read_csv(args.data)
model = tl.chow_liu(df, alpha=1.0)

os.makedirs(args.out, exist_ok=True)
path = os.path.join(args.out, "model.json")
model.save(path)  # or tl.save(model, path)
loaded = tl.load(path)
assert loaded == model  # structure, states and CPTs, exactly
print(
    f"saved and loaded {path}: {loaded.graph.number_of_edges()} edges, "
    f"{loaded.n_parameters} parameters"
)

samples = loaded.sample(args.n, random_state=0)
assert list(samples.columns) == list(df.columns)
samples.to_csv(os.path.join(args.out, "samples.csv"), index=False)
print(samples.head())

per_row_data = loaded.log_likelihood(df) / len(df)
per_row_samples = loaded.log_likelihood(samples) / len(samples)
print(f"average log-likelihood: data {per_row_data:.4f}, samples {per_row_samples:.4f} nats/row")
