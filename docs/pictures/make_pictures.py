"""The pictures of docs/pictures/ (issue 39 item 6), from the repository root:
``python docs/pictures/make_pictures.py``."""

import os

import pandas as pd
from PIL import Image

import treelearn as tl

out = "docs/pictures"
os.makedirs(out, exist_ok=True)


def save(fig, name, dpi=110):
    p = f"{out}/{name}.png"
    fig.savefig(p, dpi=dpi, bbox_inches="tight", pad_inches=0.05, facecolor="white")
    print(name, Image.open(p).size, os.path.getsize(p) // 1024, "KB")


alarm = pd.read_csv("datasets/alarm.csv").head(2000)
X = alarm.iloc[:, 1:13]
y = alarm.iloc[:, 0]
save(tl.AODE().fit(X, y).draw(), "aode")
save(
    tl.TreeMixture(n_components=5, random_state=0).fit(alarm.iloc[:, :12]).draw(), "mixture", dpi=95
)
df = pd.read_csv("datasets/asia.csv")
clf = tl.TAN().fit(df.drop(columns="dysp"), df.dysp)
save(clf.draw(), "tan")
s = tl.io.read_data("datasets/real/survey.csv")  # Exer's "None" a level
s = s[s.Smoke.notna()]
m = tl.MixedTAN().fit(s.drop(columns="Smoke"), s.Smoke)
e = m.explain(s.drop(columns="Smoke").iloc[:3], kind="shapley", output="log_odds")
save(tl.plot_explanation(e, row=1), "waterfall")
e2 = clf.explain(df.drop(columns="dysp").iloc[:300], kind="shapley", output="log_odds")
save(tl.plot_explanation(e2, kind="beeswarm"), "beeswarm")

# ensembles (issue 39 item 6): members with one structure drawn once, the heaviest first
bag = tl.BaggedTrees(n_estimators=20, random_state=0).fit(alarm.iloc[:, :10])
save(bag.draw(title=True, edge_labels=True), "ensemble_bagged_trees", dpi=150)
mix = tl.TreeMixture(n_components=5, random_state=0).fit(alarm.iloc[:, :12])
save(mix.draw(title=True, edge_labels=True), "ensemble_mixture", dpi=150)
al = pd.read_csv("datasets/alarm.csv").head(3000)
multinet = tl.ChowLiuMultinet().fit(al.drop(columns="VENTTUBE").iloc[:, :8], al.VENTTUBE)
title = "alarm (3,000 rows): a Chow-Liu tree per VENTTUBE class"
save(multinet.draw(title=title, edge_labels=True), "ensemble_multinet", dpi=150)

# cutset networks (issue 39 item 6): the OR-tree of conditioning variables over the
# heaviest leaves' Chow-Liu trees; a bag draws each distinct network's OR-tree once; the
# density that chooses draws its choice, titled with it
alarm16 = pd.read_csv("datasets/alarm.csv").iloc[:4000, :16]
net = tl.CutsetNetwork(max_depth=5, min_rows=60).fit(alarm16)
save(net.draw(title=True, edge_labels=True), "cutset_network", dpi=120)
bag = tl.CutsetNetwork(max_depth=1, n_estimators=10, random_state=0).fit(df)
save(bag.draw(title=True, edge_labels=True), "cutset_bag", dpi=150)
titanic = pd.read_csv("datasets/real/titanic.csv").drop(columns="name").dropna()
titanic["age"] = pd.qcut(titanic["age"], 4).astype(str)
auto = tl.AutoDensity(random_state=0).fit(titanic)
save(auto.draw(title=True, edge_labels=True), "auto_density", dpi=150)
