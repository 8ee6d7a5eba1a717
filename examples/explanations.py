"""Why this prediction: waterfall and beeswarm of exact Shapley values
===================================================================

A TAN classifier of the bundled ``alarm`` table predicts blood pressure (``BP``) from
36 other variables; ``explain(kind="shapley")`` gives each feature's exact Shapley value
(the prediction with only a coalition of features known, the others summed out by the
network). The values plus the base add up to the prediction exactly, which the script
asserts. The waterfall explains one row, the beeswarm 200 rows.

From the shell::

    python examples/explanations.py
"""

import os

import matplotlib

matplotlib.use("Agg")
import numpy as np
import pandas as pd

import treelearn as tl

# this script's folder (the docs' gallery runs it from there, without __file__)
HERE = os.path.dirname(os.path.abspath(globals().get("__file__", "explanations.py")))
df = pd.read_csv(os.path.join(HERE, "..", "datasets", "alarm.csv")).head(5000)
X, y = df.drop(columns="BP"), df["BP"]
clf = tl.TAN().fit(X, y)

# %%
# One row: a waterfall
# --------------------
rows = X.head(200)
explanation = clf.explain(rows, kind="shapley")
# efficiency: the contributions and the base add up to the prediction, row by row
total = explanation.values.sum(axis=1).to_numpy() + np.asarray(explanation.base)
assert np.allclose(total, np.asarray(explanation.prediction))
fig = tl.plot_explanation(explanation, row=0, kind="waterfall")

# %%
# Many rows: a beeswarm
# ---------------------
# One dot per row and feature at its contribution, features ordered by their mean
# absolute contribution. A summary shows one class: every row explains ``BP = 'HIGH'``
# (each row's own predicted class would mix three classes in one picture).
high = clf.explain(rows, kind="shapley", target_class="HIGH")
fig = tl.plot_explanation(high, kind="beeswarm")
