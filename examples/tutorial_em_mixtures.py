"""Tutorial: EM, missing values and mixtures of trees
==================================================

From the course material treelearn grew from: the EM algorithm on a tree with missing
cells (the observed-data log-likelihood never decreases), and a mixture of Chow-Liu
trees (Meila & Jordan, 2000) whose number of components is chosen by BIC. The script
asserts EM's monotone climb, that one component is exactly the Chow-Liu tree, and plots
BIC against the number of trees.

From the shell::

    python examples/tutorial_em_mixtures.py
"""

import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import treelearn as tl

# this script's folder (the docs' gallery runs it from there, without __file__)
HERE = os.path.dirname(os.path.abspath(globals().get("__file__", "tutorial_em_mixtures.py")))
df = pd.read_csv(os.path.join(HERE, "..", "datasets", "asia.csv")).head(3000)

# %%
# EM for missing cells
# --------------------
# Hide 20 % of the cells at random; structural EM re-chooses the tree from expected pair
# counts at every step, and the observed-data log-likelihood never goes down.
rng = np.random.default_rng(0)
holes = df.mask(rng.random(df.shape) < 0.2)
model = tl.chow_liu(holes, missing="em")
climb = np.asarray(model.settings["em_log_likelihood"])
print(f"{len(climb)} log-likelihoods, from {climb[0]:.1f} to {climb[-1]:.1f}")
assert np.all(np.diff(climb) >= -1e-6 * np.abs(climb[1:]))  # round-off only

# %%
# One tree, several trees
# -----------------------
# A mixture of one tree is the Chow-Liu tree itself; more trees fit better and cost more
# parameters: BIC (larger is better in treelearn) weighs the two.
states = {c: sorted(df[c].unique()) for c in df.columns}
one = tl.TreeMixture(n_components=1, states=states, random_state=0).fit(df)
assert np.isclose(one.score(df) * len(df), tl.chow_liu(df).log_likelihood(df))
bic = {}
for k in (1, 2, 3, 4):
    mixture = tl.TreeMixture(n_components=k, states=states, random_state=0).fit(df)
    bic[k] = mixture.bic(df)
    print(f"{k} trees: log-likelihood per row {mixture.score(df):.4f}, BIC {bic[k]:.1f}")

fig, ax = plt.subplots(figsize=(5, 3))
ax.plot(list(bic), list(bic.values()), marker="o")
ax.set_xlabel("number of trees")
ax.set_ylabel("BIC (larger is better)")
ax.set_xticks(list(bic))
fig.tight_layout()
