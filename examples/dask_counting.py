"""Counting on a Dask cluster: the same tree, the same classifier
==============================================================

Everything treelearn learns from discrete columns is a function of counts: single
columns, pairs, and pairs within each class. Given a ``dask.dataframe.DataFrame``, each
partition is counted on its worker (one one-hot matrix product per chunk) and only the
small count tables travel back, so the rows never meet in one process.

This page starts a small local cluster (threads in this process: ``processes=False``),
splits the bundled *asia* table into 8 partitions, and checks that the Dask answers are
exactly the in-memory ones: the Chow-Liu tree and its CPTs, and a naive Bayes and TAN
classifier's probabilities. For a real cluster, only the ``Client`` line changes.

From the shell::

    python examples/dask_counting.py
"""

import logging
import os

import numpy as np
import pandas as pd

import treelearn as tl

# this script's folder (the docs' gallery runs it from there, without __file__)
HERE = os.path.dirname(os.path.abspath(globals().get("__file__", "dask_counting.py")))

import dask.dataframe as dd  # noqa: E402
from dask.distributed import Client, LocalCluster  # noqa: E402

df = pd.read_csv(os.path.join(HERE, "..", "datasets", "asia.csv"))

# distributed logs each shuffle it starts (aligning X's and y's partitions) at WARNING
logging.getLogger("distributed.shuffle").setLevel(logging.ERROR)
cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None)
client = Client(cluster)
ddf = dd.from_pandas(df, npartitions=8)
print(ddf.npartitions, "partitions of about", len(df) // ddf.npartitions, "rows")

# %%
# The Chow-Liu tree
# -----------------
# The pair counts are summed over partitions on the workers; the tree and the CPTs come
# from the sums, so the model equals the one learned from the whole table in memory.

on_dask = tl.chow_liu(ddf, root="smoke")
in_memory = tl.chow_liu(df, root="smoke")
assert on_dask == in_memory
print(on_dask)

# %%
# Classifiers
# -----------
# ``fit`` takes the Dask frame and a Dask Series of classes partitioned like it.

X, y = ddf.drop(columns="either"), ddf["either"]
for cls in (tl.NaiveBayes, tl.TAN):
    clf = cls().fit(X, y)
    reference = cls().fit(df.drop(columns="either"), df["either"])
    rows = df.drop(columns="either").head(200)
    assert np.allclose(clf.predict_proba(rows), reference.predict_proba(rows))
    print(f"{cls.__name__}: the same probabilities as in memory")

# %%
# Weights are counts too
# ----------------------
# A weight column (here each row counted twice or once) gives exactly the model of the
# rows repeated, on the cluster as in memory.

weights = np.where(np.arange(len(df)) % 2 == 0, 2, 1)
weighted = dd.from_pandas(df.assign(w=weights), npartitions=8)
assert tl.chow_liu(weighted, sample_weight="w") == tl.chow_liu(df.loc[df.index.repeat(weights)])
print("weighted rows on Dask == repeated rows in memory")

# %%
# Where the rows were counted
# ---------------------------
# The picture shows the split: each bar is a partition, its height the rows in it and
# its colour the worker that holds it (``Client.who_has`` after ``persist``); next to it,
# the tree learned from the workers' count tables, each edge's width its mutual
# information. Only count tables travelled back to this process, never the rows.

import matplotlib.pyplot as plt  # noqa: E402
from dask.distributed import futures_of, wait  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

persisted = ddf.persist()
wait(persisted)
rows = persisted.map_partitions(len).compute().tolist()
# each partition's key is (name, partition number); who_has gives the workers holding it
holder = {key[1]: found[0] for key, found in client.who_has(futures_of(persisted)).items()}
workers = sorted(set(holder.values()))
worker_of = [workers.index(holder[i]) for i in range(len(rows))]
print("rows per partition:", rows, "worker of each:", [w + 1 for w in worker_of])

fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2), width_ratios=[1, 1.6])
palette = plt.get_cmap("tab10")
left.bar(range(len(rows)), rows, color=[palette(w) for w in worker_of])
left.set(xlabel="partition", ylabel="rows counted there", ylim=(0, 1.3 * max(rows)))
left.set_title(f"{len(df):,} rows in {len(rows)} partitions on {len(workers)} workers")
left.set_xticks(range(len(rows)))
left.legend(
    handles=[Patch(color=palette(w), label=f"worker {w + 1}") for w in range(len(workers))],
    loc="upper center",
    ncols=len(workers),
)
on_dask.draw(ax=right, edge_labels=True, data=df)
right.set_title("Chow-Liu tree from the workers' counts (= in memory)")
fig.tight_layout()

client.cancel(persisted)  # release the partitions before the workers stop
client.close()
cluster.close()
