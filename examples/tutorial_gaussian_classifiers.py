"""Tutorial: Bayes classifiers with Gaussian features
==================================================

From the course material treelearn grew from: with numeric features, a Bayes classifier
models each class as a Gaussian ``N(mu_c, Sigma_c)`` and predicts by Bayes' rule. The
choice of covariance sets the shape of the decision boundaries:

* ``"full"``: one matrix per class (quadratic discriminant analysis, QDA);
* ``"shared"``: one pooled matrix (linear discriminant analysis, LDA: linear boundaries);
* ``"diagonal"``: per class, each feature its own variance (Gaussian naive Bayes);
* ``"isotropic"``: per class, one variance for every feature.

On the Palmer penguins (three species, four body measurements; ``datasets/real``), each
posterior is computed twice, by hand from the maximum-likelihood estimates with scipy and
by :class:`treelearn.GaussianClassifier`, and compared with scikit-learn's QDA, LDA and
``GaussianNB``; the script asserts they agree. Then a loss matrix changes the decision.

From the shell::

    python examples/tutorial_gaussian_classifiers.py
"""

import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from scipy.stats import multivariate_normal
from sklearn.discriminant_analysis import (
    LinearDiscriminantAnalysis,
    QuadraticDiscriminantAnalysis,
)
from sklearn.naive_bayes import GaussianNB

import treelearn as tl

# this script's folder (the docs' gallery runs it from there, without __file__)
HERE = os.path.dirname(
    os.path.abspath(globals().get("__file__", "tutorial_gaussian_classifiers.py"))
)
penguins = pd.read_csv(os.path.join(HERE, "..", "datasets", "real", "penguins.csv"))
features = ["bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g"]
penguins = penguins.dropna(subset=features)
X, y = penguins[features], penguins["species"]
classes = sorted(y.unique())
print(len(X), "penguins;", y.value_counts().sort_index().to_dict())

# %%
# The estimates, by hand
# ----------------------
# Maximum likelihood: each class's share of the rows, its mean, and its covariance with
# ``1 / n_c`` (not ``1 / (n_c - 1)``). The pooled covariance weighs each class's by its
# rows; the diagonal keeps the variances; the isotropic variance is their mean.

prior = {c: float((y == c).mean()) for c in classes}
mean = {c: X[y == c].to_numpy().mean(axis=0) for c in classes}
cov = {c: np.cov(X[y == c].to_numpy().T, bias=True) for c in classes}
pooled = sum((y == c).sum() * cov[c] for c in classes) / len(X)
shapes = {
    "full": cov,
    "shared": dict.fromkeys(classes, pooled),
    "diagonal": {c: np.diag(np.diag(cov[c])) for c in classes},
    "isotropic": {c: np.trace(cov[c]) / len(features) * np.eye(len(features)) for c in classes},
}


def posterior_by_hand(covariances: dict) -> np.ndarray:
    """``P(c | x)`` by Bayes' rule from the Gaussian densities (scipy)."""
    log_joint = np.column_stack(
        [
            np.log(prior[c]) + multivariate_normal(mean[c], covariances[c]).logpdf(X.to_numpy())
            for c in classes
        ]
    )
    return np.exp(log_joint - np.logaddexp.reduce(log_joint, axis=1, keepdims=True))


# %%
# Four classifiers, each checked
# ------------------------------
# treelearn's posteriors equal the hand computation for every covariance choice, and
# scikit-learn's for the three it has.

peers = {
    "full": QuadraticDiscriminantAnalysis(),
    "shared": LinearDiscriminantAnalysis(solver="lsqr"),
    "diagonal": GaussianNB(var_smoothing=0.0),
}
fitted = {}
for shape, covariances in shapes.items():
    clf = tl.GaussianClassifier(shape).fit(X, y)
    assert list(clf.classes_) == classes
    proba = clf.predict_proba(X)
    assert np.allclose(proba, posterior_by_hand(covariances), atol=1e-9), shape
    if shape in peers:
        assert np.allclose(proba, peers[shape].fit(X, y).predict_proba(X), atol=1e-9), shape
    fitted[shape] = clf
    print(f"{shape:9s} training accuracy {clf.score(X, y):.4f}")

# %%
# The boundaries they draw
# ------------------------
# On two features (bill length and depth) the four choices side by side: the shared
# covariance gives straight boundaries, the others curves; the isotropic one ignores
# that bills of the same species vary more in length than in depth.

two = ["bill_length_mm", "bill_depth_mm"]
xx, yy = np.meshgrid(
    np.linspace(X[two[0]].min() - 2, X[two[0]].max() + 2, 200),
    np.linspace(X[two[1]].min() - 1, X[two[1]].max() + 1, 200),
)
grid = pd.DataFrame({two[0]: xx.ravel(), two[1]: yy.ravel()})
fig, axes = plt.subplots(1, 4, figsize=(16, 4), sharey=True)
for ax, shape in zip(axes, shapes):
    clf = tl.GaussianClassifier(shape).fit(X[two], y)
    region = pd.Series(clf.predict(grid)).map({c: i for i, c in enumerate(classes)})
    ax.contourf(
        xx, yy, region.to_numpy().reshape(xx.shape), alpha=0.25, levels=[-0.5, 0.5, 1.5, 2.5]
    )
    for i, species in enumerate(classes):  # the same colours as the regions
        rows = y == species
        ax.scatter(
            X.loc[rows, two[0]],
            X.loc[rows, two[1]],
            s=8,
            label=species,
            color=plt.cm.viridis(i / (len(classes) - 1)),
        )
    ax.set_title(f'covariance="{shape}"')
    ax.set_xlabel(two[0])
axes[0].set_ylabel(two[1])
axes[0].legend(loc="upper left", fontsize=8)
fig.tight_layout()

# %%
# A loss matrix
# -------------
# ``loss[k, j]`` is the cost of predicting ``j`` when the truth is ``k``; the Bayes
# decision minimises the expected loss ``sum_k loss[k, j] P(k | x)``. Calling a Chinstrap
# anything else costs 10 here, every other mistake 1: doubtful penguins become Chinstraps.

loss = np.ones((3, 3)) - np.eye(3)
loss[classes.index("Chinstrap"), :] *= 10
clf = fitted["full"]
decision = clf.predict(X, loss=loss)
expected = clf.predict_proba(X) @ loss
assert (decision == np.asarray(classes)[expected.argmin(axis=1)]).all()
changed = decision != clf.predict(X)
print(
    int(changed.sum()),
    "of",
    len(X),
    "decisions change;",
    "all to Chinstrap:",
    bool((decision[changed] == "Chinstrap").all()),
)
assert (decision[changed] == "Chinstrap").all()
