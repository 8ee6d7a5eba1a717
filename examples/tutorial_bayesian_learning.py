"""Tutorial: Bayesian learning of a naive Bayes classifier
=======================================================

From the course material treelearn grew from: maximum likelihood (ML) against maximum a
posteriori (MAP) estimates of a conditional probability table, the m-estimate, the
Dirichlet posterior, and the Bayes-optimal class of a row, on the 14-day *play tennis*
table. Every number is computed by hand from the counts and asserted equal to treelearn's.
Each table here is one family's own estimate, so every classifier keeps its class arcs
(``class_arcs="all"``); treelearn's default averages each arc from the class in or out
(Dash and Cooper, 2002; ``NaiveBayes``'s ``class_arcs``).

From the shell::

    python examples/tutorial_bayesian_learning.py
"""

import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from scipy import stats

import treelearn as tl

# this script's folder (the docs' gallery runs it from there, without __file__)
HERE = os.path.dirname(os.path.abspath(globals().get("__file__", "tutorial_bayesian_learning.py")))
df = pd.read_csv(os.path.join(HERE, "..", "datasets", "playtennis.csv")).drop(columns="Day")
X, y = df.drop(columns="PlayTennis"), df["PlayTennis"]
counts = pd.crosstab(y, X["Outlook"])  # rows: the class, columns: Outlook's states
print(counts)
k = counts.shape[1]  # Outlook's number of states

# %%
# Maximum likelihood, and its zero
# --------------------------------
# ``P(Outlook = o | class = c) = n(o, c) / n(c)``. No day with Outlook = Overcast was a
# "No" day, so ML says such a day is never "No": one unseen combination vetoes the class.
ml = tl.NaiveBayes(alpha=0, class_arcs="all").fit(X, y)
by_hand = counts.div(counts.sum(axis=1), axis=0)
assert np.allclose(ml.model_.cpt_frame("Outlook").to_numpy(), by_hand.to_numpy())
overcast_day = X[X["Outlook"] == "Overcast"].head(1)
print("ML: P(No | an overcast day) =", ml.predict_proba(overcast_day)[0, 0])
assert ml.predict_proba(overcast_day)[0, 0] == 0.0

# %%
# Laplace and Lidstone smoothing: the Dirichlet posterior mean
# ------------------------------------------------------------
# With a symmetric Dirichlet(``alpha``) prior on each CPT row, the posterior is
# Dirichlet(``n(o, c) + alpha``) and its mean is ``(n(o, c) + alpha) / (n(c) + k alpha)``:
# treelearn's ``alpha`` (1 = Laplace, the default). The same value is the MAP estimate
# under a Dirichlet(``alpha + 1``) prior.
for alpha in (0.5, 1.0, 2.0):
    fitted = (
        tl.NaiveBayes(alpha=alpha, class_arcs="all")
        .fit(X, y)
        .model_.cpt_frame("Outlook")
        .to_numpy()
    )
    posterior_mean = (counts + alpha).div(counts.sum(axis=1) + k * alpha, axis=0).to_numpy()
    assert np.allclose(fitted, posterior_mean)
    a = counts.to_numpy() + alpha + 1  # MAP of Dirichlet(a): (a - 1) / (sum(a) - k)
    assert np.allclose(fitted, (a - 1) / (a.sum(axis=1, keepdims=True) - k))
print("alpha = 0.5, 1, 2: every CPT entry is the Dirichlet posterior mean (and a MAP)")

# %%
# The m-estimate
# --------------
# ``(n(o, c) + m p) / (n(c) + m)`` with a prior ``p`` (here uniform, ``1 / k``): ``m``
# virtual examples spread as ``p``.
m = 2.0
fitted = (
    tl.NaiveBayes(prior="m-estimate", m=m, class_arcs="all").fit(X, y).model_.cpt_frame("Outlook")
)
by_hand = (counts + m / k).div(counts.sum(axis=1) + m, axis=0)
assert np.allclose(fitted.to_numpy(), by_hand.to_numpy())
print(fitted.round(4))

# %%
# The Bayes-optimal class of a row
# --------------------------------
# ``P(c | x) ∝ P(c) prod_j P(x_j | c)``, normalised over the classes; the decision of least
# expected 0-1 loss is the class of highest posterior.
clf = tl.NaiveBayes(alpha=1.0, class_arcs="all").fit(X, y)
row = pd.DataFrame(
    [{"Outlook": "Sunny", "Temperature": "Cool", "Humidity": "High", "Wind": "Strong"}]
)
joint = []
for c in clf.classes_:
    p = float((y == c).mean())  # the class prior: its ML frequency
    for column in X.columns:
        p *= clf.model_.cpt_frame(column).loc[c, row.loc[0, column]]
    joint.append(p)
posterior = np.array(joint) / sum(joint)
print(dict(zip(clf.classes_, posterior.round(4))))
assert np.allclose(clf.predict_proba(row)[0], posterior)
assert clf.predict(row)[0] == clf.classes_[posterior.argmax()]

# %%
# The posterior of one probability
# --------------------------------
# ``P(Outlook = Sunny | Yes)`` under a Dirichlet(``alpha``) prior has a Beta posterior
# (the Dirichlet's marginal): its mean is treelearn's estimate; the dashed line is the ML
# estimate.
sunny, n_yes = counts.loc["Yes", "Sunny"], counts.loc["Yes"].sum()
grid = np.linspace(0, 1, 400)
fig, ax = plt.subplots(figsize=(6, 3.5))
for alpha in (0.5, 1.0, 5.0):
    beta = stats.beta(sunny + alpha, n_yes - sunny + (k - 1) * alpha)
    estimate = (
        tl.NaiveBayes(alpha=alpha, class_arcs="all")
        .fit(X, y)
        .model_.cpt_frame("Outlook")
        .loc["Yes", "Sunny"]
    )
    assert np.isclose(beta.mean(), estimate)
    ax.plot(grid, beta.pdf(grid), label=f"alpha = {alpha}: mean {estimate:.3f}")
ax.axvline(sunny / n_yes, color="k", linestyle="--", label=f"ML {sunny / n_yes:.3f}")
ax.set_xlabel("P(Outlook = Sunny | PlayTennis = Yes)")
ax.set_ylabel("posterior density")
ax.legend()
fig.tight_layout()
