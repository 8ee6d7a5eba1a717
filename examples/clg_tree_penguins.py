"""A conditional linear Gaussian tree of a mixed table: the Palmer penguins
========================================================================

A real table mixes categories (species, island, sex) with measurements (bill, flipper,
body mass). :func:`treelearn.clg_tree` learns one tree over both kinds: a discrete node
has a CPT, a continuous node under a discrete parent one Gaussian per parent state, and
under a continuous parent a linear regression. No discrete node gets a continuous parent.

Every parameter, the tree's edge weights, its log-likelihood and a query are computed
again by hand (pandas, numpy, scipy) and the script asserts they agree. Maximum
likelihood (``alpha=0``) keeps the hand computations short.

From the shell::

    python examples/clg_tree_penguins.py
"""

import os

import matplotlib

matplotlib.use("Agg")
import numpy as np
import pandas as pd
from scipy.stats import norm

import treelearn as tl

# this script's folder (the docs' gallery runs it from there, without __file__)
HERE = os.path.dirname(os.path.abspath(globals().get("__file__", "clg_tree_penguins.py")))
penguins = pd.read_csv(os.path.join(HERE, "..", "datasets", "real", "penguins.csv"))
df = penguins.drop(columns="year").dropna()  # 333 complete rows of 344
print(df.dtypes.to_dict())

# %%
# The tree
# --------
# Float columns are taken as continuous, the others as discrete. The tree is the maximum
# spanning tree of the pairs' mutual information, rooted at the species.

model = tl.clg_tree(df, root="species", alpha=0)
print(model)
fig = model.draw()

# %%
# A Gaussian per species, and a regression
# ----------------------------------------
# Under a discrete parent a continuous node's parameters are each group's mean and
# variance (maximum likelihood: divided by the group's rows); under a continuous parent,
# the least-squares line and its residual variance.

node = model.graph.nodes["flipper_length_mm"]
groups = df.groupby("species")["flipper_length_mm"]
assert np.allclose(node["means"], groups.mean().to_numpy())
assert np.allclose(node["variances"], groups.var(ddof=0).to_numpy())

mass = model.graph.nodes["body_mass_g"]
assert list(model.graph.predecessors("body_mass_g")) == ["flipper_length_mm"]
slope, intercept = np.polyfit(df["flipper_length_mm"], df["body_mass_g"], 1)
residual = df["body_mass_g"] - (intercept + slope * df["flipper_length_mm"])
assert np.isclose(mass["coefficient"], slope) and np.isclose(mass["intercept"], intercept)
assert np.isclose(mass["variance"], (residual**2).mean())
print(f"body mass = {intercept:.1f} + {slope:.3f} x flipper length (grams, mm)")

# %%
# The edge weights
# ----------------
# Between a category ``C`` and a Gaussian ``X`` the weight is what the edge adds to the
# maximised log-likelihood per row: ``1/2 ln var(X) - sum_c P(c) 1/2 ln var(X | c)``.

p = df["species"].value_counts(normalize=True).sort_index()
weight = 0.5 * np.log(df["flipper_length_mm"].var(ddof=0)) - float(
    (p * 0.5 * np.log(groups.var(ddof=0))).sum()
)
assert np.isclose(model.graph["species"]["flipper_length_mm"]["weight"], weight)
print("I(species; flipper length) =", round(weight, 4), "nats")

# %%
# The log-likelihood, one family at a time
# ----------------------------------------
# A Bayesian network's log-likelihood is the sum of its families': here CPT entries
# (empirical frequencies) and Gaussian log densities.


def family_log_likelihood(v: str) -> float:
    parents = list(model.graph.predecessors(v))
    if v not in model.continuous:  # a CPT of frequencies: sum of N(u, v) ln(N(u, v) / N(u))
        counts = df.groupby([*parents, v]).size()
        totals = (
            counts.groupby(level=list(range(len(parents)))).transform("sum") if parents else len(df)
        )
        return float((counts * np.log(counts / totals)).sum())
    attrs = model.graph.nodes[v]
    (u,) = parents  # the root is discrete: every continuous node has one parent
    if u in model.continuous:  # a regression on u
        loc = attrs["intercept"] + attrs["coefficient"] * df[u]
        return float(norm.logpdf(df[v], loc, np.sqrt(attrs["variance"])).sum())
    index = df[u].map({s: i for i, s in enumerate(model.states[u])}).to_numpy()
    loc = np.asarray(attrs["means"])[index]  # a Gaussian per state of u
    scale = np.sqrt(np.asarray(attrs["variances"])[index])
    return float(norm.logpdf(df[v], loc, scale).sum())


by_hand = sum(family_log_likelihood(v) for v in model.variables)
assert np.isclose(model.log_likelihood(df), by_hand)
print("log-likelihood", round(by_hand, 2), "nats =", round(by_hand / len(df), 4), "per row")

# %%
# Asking the tree
# ---------------
# Which species has a 200 mm flipper and a 45 mm bill? Body mass hangs below the flipper
# (observed), the other columns are summed out, so by hand it is Bayes' rule with two
# Gaussians per species.

evidence = {"flipper_length_mm": 200.0, "bill_length_mm": 45.0}
answer = model.query("species", evidence)
bill = model.graph.nodes["bill_length_mm"]
flipper = model.graph.nodes["flipper_length_mm"]
joint = (
    p.to_numpy()
    * norm.pdf(200.0, flipper["means"], np.sqrt(flipper["variances"]))
    * norm.pdf(45.0, bill["means"], np.sqrt(bill["variances"]))
)
assert np.allclose(answer.to_numpy(), joint / joint.sum())
print(answer.round(4).to_dict())
