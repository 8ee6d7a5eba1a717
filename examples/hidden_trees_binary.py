"""Hidden trees, mixtures and Chow-Liu on DEBD-like binary data
============================================================

The twenty DEBD density-estimation benchmarks (nltcs, msnbc, plants, ...) are tables of
0/1 columns; a model is judged by its mean log-likelihood per row on held-out rows. This
page makes a small table of that kind that ships with nothing: 16 binary columns sampled
(fixed seed) from a known **hidden tree**, a tree of 3-state latent variables each
emitting one column, so that the best possible score (the true model's) is known.

Then it fits what treelearn offers for such data and compares held-out scores:

* :class:`~treelearn.ChowLiuTree`: the best tree over the columns themselves;
* :class:`~treelearn.TreeMixture`: a mixture of trees, by EM;
* :class:`~treelearn.HiddenTree`: a latent per column, the latents a Chow-Liu tree
  (Liu & Van den Broeck's hidden Chow-Liu tree), by exact EM.

Two numbers are checked by other means: a hidden tree with one latent state is the
independent model (sum of the columns' empirical log-frequencies), and the true model
sums its latents out exactly (on one column: ``P(x0) = sum_h P(H0 = h) P(x0 | h)``).

From the shell::

    python examples/hidden_trees_binary.py
"""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import networkx as nx
import numpy as np
import pandas as pd

import treelearn as tl

# %%
# A DEBD-like table from a known hidden tree
# ------------------------------------------
# Latents ``H0..H15`` of 3 states form a random tree (each keeps its parent's state with
# probability 0.8); column ``xi`` is 1 with probability 0.1, 0.5 or 0.9 by ``Hi``'s state.

rng = np.random.default_rng(42)
d = 16
latents, columns = [f"H{i}" for i in range(d)], [f"x{i}" for i in range(d)]
truth_graph = nx.DiGraph()
truth_graph.add_node("H0", states=[0, 1, 2], cpt=np.array([0.5, 0.3, 0.2]))
stay = np.full((3, 3), 0.1) + 0.7 * np.eye(3)  # rows: parent state; each sums to 1
emit = np.array([[0.9, 0.1], [0.5, 0.5], [0.1, 0.9]])
for i in range(1, d):
    truth_graph.add_node(latents[i], states=[0, 1, 2], cpt=stay)
    truth_graph.add_edge(latents[int(rng.integers(0, i))], latents[i])
for i in range(d):
    truth_graph.add_node(columns[i], states=[0, 1], cpt=emit)
    truth_graph.add_edge(latents[i], columns[i])
truth = tl.TreeModel(truth_graph)
rows = truth.sample(3000, random_state=0)[columns]
train, test = rows.iloc[:2000], rows.iloc[2000:]
print(
    train.shape,
    "training rows,",
    test.shape,
    "held-out rows; share of 1s:",
    round(float(train.to_numpy().mean()), 3),
)

# %%
# The true model's score
# ----------------------
# Missing cells are summed out exactly, so the held-out rows with every latent missing
# score under the true model's distribution of the columns.

hidden_cells = pd.DataFrame(np.nan, index=test.index, columns=latents)
best = truth.log_likelihood(pd.concat([test, hidden_cells], axis=1)) / len(test)
# the summing out, checked on the root's column: P(x0) = sum_h P(H0 = h) P(x0 | h)
p_x0 = truth_graph.nodes["H0"]["cpt"] @ emit
x0_model = truth.query("x0")
assert np.allclose(x0_model.to_numpy(), p_x0)
print("true model:", round(best, 4), "nats per held-out row")

# %%
# Three learners
# --------------

scores = {"true model": best}
parameters = {"true model": truth.n_parameters}
chow_liu = tl.ChowLiuTree().fit(train)
scores["Chow-Liu tree"] = chow_liu.score(test)
parameters["Chow-Liu tree"] = chow_liu.model_.n_parameters
for k in (2, 4):
    mixture = tl.TreeMixture(n_components=k, random_state=0).fit(train)
    scores[f"mixture of {k} trees"] = mixture.score(test)
    parameters[f"mixture of {k} trees"] = mixture.model_.n_parameters
for h in (2, 3):
    hidden = tl.HiddenTree(n_states=h, random_state=0).fit(train)
    scores[f"hidden tree, {h} states"] = hidden.score(test)
    parameters[f"hidden tree, {h} states"] = hidden.model_.n_parameters
    # EM never lowers the training likelihood (up to the smoothing's prior term)
    assert all(b <= a + 1e-6 for b, a in zip(hidden.lower_bounds_, hidden.lower_bounds_[1:]))
table = pd.DataFrame({"held-out log-lik / row": scores, "parameters": parameters})
print(table.round(4))
assert scores["hidden tree, 3 states"] > scores["Chow-Liu tree"]
assert max(v for k, v in scores.items() if k != "true model") < best + 0.05

# %%
# One latent state is the independent model
# -----------------------------------------
# With a single state the latents carry nothing: every column is on its own, and the
# maximum-likelihood fit's score is the sum of each column's empirical log-frequencies.

one = tl.HiddenTree(n_states=1, alpha=0, random_state=0).fit(train)
by_hand = sum(
    float(np.log(train[c].map(train[c].value_counts(normalize=True))).sum()) for c in columns
) / len(train)
assert np.isclose(one.score(train), by_hand)
print("one latent state:", round(by_hand, 4), "nats per training row, as by hand")

# %%
# The picture: score against size
# -------------------------------

fig, ax = plt.subplots(figsize=(7, 4))
learned = table.drop(index="true model")
ax.scatter(learned["parameters"], learned["held-out log-lik / row"])
for name, row in learned.iterrows():
    ax.annotate(
        name,
        (row["parameters"], row["held-out log-lik / row"]),
        fontsize=8,
        xytext=(4, 4),
        textcoords="offset points",
    )
ax.axhline(best, color="grey", linestyle="--", label="true model")
ax.margins(x=0.3)  # room for the labels
ax.set_xlabel("free parameters")
ax.set_ylabel("held-out log-likelihood per row (nats)")
ax.legend(loc="lower right")
fig.tight_layout()
