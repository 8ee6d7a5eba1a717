"""Tutorial: maximum likelihood and the Chow-Liu tree
==================================================

From the course material treelearn grew from (MIT 6.008-style): the maximum-likelihood
tree is the maximum spanning tree of the empirical mutual information, and its
log-likelihood is ``n (sum of edge MI - sum of entropies)``. Every number below is computed
twice, by hand from the empirical distribution and by treelearn, and the two are asserted
equal.

From the shell::

    python examples/tutorial_chow_liu_mle.py
"""

import itertools
import os

import matplotlib

matplotlib.use("Agg")
import numpy as np
import pandas as pd

import treelearn as tl

# this script's folder (the docs' gallery runs it from there, without __file__)
HERE = os.path.dirname(os.path.abspath(globals().get("__file__", "tutorial_chow_liu_mle.py")))
df = pd.read_csv(os.path.join(HERE, "..", "datasets", "asia.csv"))
n = len(df)

# %%
# The empirical distribution and entropies
# ----------------------------------------
# The maximum-likelihood estimate of a distribution of one column is its empirical
# distribution, the counts over ``n``. Its entropy, in nats:


def entropy(*columns: str) -> float:
    p = df.value_counts(list(columns), normalize=True).to_numpy()
    return float(-(p * np.log(p)).sum())


H = {c: entropy(c) for c in df.columns}
print({c: round(h, 4) for c, h in H.items()})

# %%
# The mutual-information weight of each pair
# ------------------------------------------
# ``I(X; Y) = H(X) + H(Y) - H(X, Y)`` of the empirical joint. treelearn's complete graph
# carries the same numbers as edge weights (computed from its one-hot count product):

G = tl.mi_graph(df)
for a, b in itertools.combinations(df.columns, 2):
    by_hand = H[a] + H[b] - entropy(a, b)
    assert abs(G[a][b]["weight"] - by_hand) < 1e-12, (a, b)
print("every one of", G.number_of_edges(), "MI weights equals the hand computation")

# %%
# The tree, and the likelihood identity
# -------------------------------------
# Under maximum likelihood (``alpha=0``: no pseudocounts) a tree's log-likelihood is
# ``n (sum over its edges of I - sum over the variables of H)``, so the tree of largest
# likelihood is the maximum spanning tree of the MI (Chow & Liu, 1968).

model = tl.chow_liu(df, alpha=0)
edges = list(model.graph.edges)  # a networkx DiGraph, parent -> child
sum_mi = sum(G[a][b]["weight"] for a, b in edges)
identity = n * (sum_mi - sum(H.values()))
ll = model.log_likelihood(df)
print(f"log-likelihood {ll:.6f}, n(sum I - sum H) {identity:.6f}")
assert abs(ll - identity) < 1e-8 * abs(identity)

# %%
# No other spanning tree scores higher
# ------------------------------------
# A brute-force check over random spanning trees: each one's likelihood (by the same
# identity) is at most the Chow-Liu tree's.
rng = np.random.default_rng(0)
columns = list(df.columns)
for _ in range(200):
    order = rng.permutation(columns)  # a random tree: attach each column to an earlier one
    tree = [(order[i], order[rng.integers(i)]) for i in range(1, len(order))]
    assert sum(G[a][b]["weight"] for a, b in tree) <= sum_mi + 1e-12
print("200 random spanning trees, none with a larger likelihood")

fig = model.draw(edge_labels=True, title=True, data=df)
