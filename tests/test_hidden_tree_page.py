"""A hidden tree's explorer page is titled as one: on a real network (pgmpy's
alarm sampled, 37 columns) the page said ``tree model · 74 variables``, its network's
title, counting the 37 latents as variables of the table. The title now counts the
columns and latents apart (counted here from the table and the network's nodes); the
rest of the page is the network's, unchanged."""

from __future__ import annotations

import html
import pathlib

import pandas as pd

import treelearn as tl

ASIA = pd.read_csv(pathlib.Path(__file__).parents[1] / "datasets" / "asia.csv")


def test_the_page_title_counts_columns_and_latents():
    hidden = tl.HiddenTree(n_states=2, random_state=0, max_iter=3).fit(ASIA).model_
    n_latent = hidden.network.graph.number_of_nodes() - ASIA.shape[1]
    spec = hidden.explorer_spec()
    expected = f"hidden tree · {ASIA.shape[1]} columns · {n_latent} latents · n = {len(ASIA):,}"
    assert spec["title"] == expected
    network = hidden.network.explorer_spec()
    assert {k for k in spec if spec[k] != network[k]} == {"title"}
    page = hidden.to_html()
    assert expected in html.unescape(page)
    assert tl.to_html(hidden) == page
    assert hidden.explorer_spec(title="mine")["title"] == "mine"
