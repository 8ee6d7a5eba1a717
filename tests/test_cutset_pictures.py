"""Pictures of cutset networks (issue 39 item 6): the drawn structure is the model's. The
OR-tree (each OR node's variable, each branch's state and probability) and every leaf's
Chow-Liu tree are read back from the DOT and Mermaid text and compared with the model's own
nodes, walked here independently; big networks are summarised within ``max_leaves`` (every
leaf accounted for, no closed subtree that would still fit); bags draw each distinct network
once (a pairwise brute-force comparison of the networks); every picture within 2,000 px."""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import treelearn as tl
from treelearn.models._cutset import Leaf, Split

pytest.importorskip("matplotlib")


def _expected(net: tl.CutsetModel) -> dict:
    """The model's OR-tree walked directly: ``{path: ...}`` of OR nodes (variable, branches
    as (state, weight)) and leaves (number, weight, conditions, tree edges, root)."""
    ors, leaves = {}, {}
    stack = [((), net.root, 1.0, ())]
    order = []
    while stack:
        path, node, weight, way = stack.pop()
        if isinstance(node, Leaf):
            order.append((path, node, weight, way))
            continue
        assert isinstance(node, Split)
        name = net.columns[node.variable]
        states = net.states[name]
        ors[path] = (name, [(states[a], float(w)) for a, w in enumerate(node.weights)])
        for a in reversed(range(len(node.children))):
            stack.append(
                (
                    (*path, a),
                    node.children[a],
                    weight * float(node.weights[a]),
                    (*way, f"{name}={states[a]}"),
                )
            )
    for k, (path, node, weight, way) in enumerate(order, start=1):
        tree = node.tree
        leaves[path] = {
            "k": k,
            "weight": weight,
            "way": way,
            "edges": set() if tree is None else {(str(u), str(v)) for u, v in tree.graph.edges},
            "n": len(node.columns),
            "empty": tree is None,
        }
    return {"or": ors, "leaves": leaves}


def _dot_parts(text: str) -> dict:
    """Nodes, edges (with their attributes) and clusters of DOT text, parsed."""
    nodes, edges, clusters = {}, [], {}
    current = None
    for line in text.splitlines():
        line = line.strip()
        m = re.match(r'^subgraph "cluster_(\w+)" \{$', line)
        if m:
            current = m.group(1)
            clusters[current] = {"edges": set(), "label": None}
            continue
        if line == "}":
            current = None
            continue
        m = re.match(r'^label="(.*)";$', line)
        if m and current is not None:
            clusters[current]["label"] = m.group(1)
            continue
        m = re.match(r'^"([^"]+)" -> "([^"]+)" \[(.*)\];$', line)
        if m:
            attrs = dict(re.findall(r'(\w+)="([^"]*)"', m.group(3)))
            if current is None:
                edges.append((m.group(1), m.group(2), attrs))
            else:
                clusters[current]["edges"].add((m.group(1), m.group(2)))
            continue
        m = re.match(r'^"([^"]+)" \[label="([^"]*)"(.*)\];$', line)
        if m:
            nodes[m.group(1)] = (m.group(2), m.group(3))
    return {"nodes": nodes, "edges": edges, "clusters": clusters}


def _or_id(path: tuple) -> str:
    return "or" + ".".join(map(str, path))


@pytest.fixture(scope="module")
def asia_net():
    df = pd.read_csv("datasets/asia.csv")
    return tl.CutsetNetwork(max_depth=3, min_rows=10, penalty=None).fit(df).model_


@pytest.fixture(scope="module")
def alarm_net():
    df = pd.read_csv("datasets/alarm.csv").iloc[:4000, :20]
    return tl.CutsetNetwork(max_depth=6, min_rows=40, penalty=None).fit(df).model_


def test_dot_holds_the_model_or_tree_and_every_leaf_tree(asia_net):
    want = _expected(asia_net)
    got = _dot_parts(asia_net.to_dot(max_leaves=None))
    # every OR node: its variable in an ellipse
    for path, (name, _) in want["or"].items():
        label, style = got["nodes"][_or_id(path)]
        assert label == name and "ellipse" in style
    # every branch: an edge from its OR node, labelled with the state and probability, into
    # the child OR node, the empty leaf's box, or (lhead) the leaf tree's cluster
    got_edges = {}
    for u, v, attrs in got["edges"]:
        target = attrs.get("lhead", v)
        got_edges[(u, target)] = (v, attrs["label"])
    want_edges = {}
    for path, (_, branches) in want["or"].items():
        for a, (state, weight) in enumerate(branches):
            child = (*path, a)
            leaf = want["leaves"].get(child)
            target = _or_id(child) if leaf is None or leaf["empty"] else f"cluster_L{leaf['k']}"
            want_edges[(_or_id(path), target)] = f"{state} ({weight:.3g})"
    assert {k: lab for k, (_, lab) in got_edges.items()} == want_edges
    for (_, target), (v, _) in got_edges.items():
        if target.startswith("cluster_L"):  # the edge enters the cluster at a node of it
            assert v.startswith(target.removeprefix("cluster_") + ":")
    # every leaf's tree: its cluster, titled with its number, weight and conditions
    for leaf in want["leaves"].values():
        cluster = got["clusters"][f"L{leaf['k']}"]
        edges = {(u.split(":", 1)[1], v.split(":", 1)[1]) for u, v in cluster["edges"]}
        assert edges == leaf["edges"]
        assert cluster["label"] == (
            f"leaf {leaf['k']}: weight {leaf['weight']:.3f} ({', '.join(leaf['way'])})"
        )
    assert math.isclose(math.fsum(x["weight"] for x in want["leaves"].values()), 1.0)


def test_mermaid_holds_the_same_structure(asia_net):
    want = _expected(asia_net)
    text = asia_net.to_mermaid(max_leaves=None)
    labels = dict(re.findall(r'^\s*(\w+)\(?\["(.*)"\]\)?$', text, re.M))
    links = re.findall(r'^\s*(\w+) -->\|"(.*)"\| (\w+)$', text, re.M)
    subgraphs = dict(re.findall(r'^\s*subgraph (\w+)\["(.*)"\]$', text, re.M))
    ids = {"or" + "_".join(map(str, p)): p for p in want["or"]}
    for ident, path in ids.items():
        assert labels[ident] == want["or"][path][0]
    branch_links = [(u, lab, v) for u, lab, v in links if u in ids]
    assert len(branch_links) == sum(len(b) for _, b in want["or"].values())
    for u, lab, v in branch_links:
        path = ids[u]
        a = next(
            i
            for i in range(len(want["or"][path][1]))
            if v == "or" + "_".join(map(str, (*path, i)))
            or ((*path, i) in want["leaves"] and v == f"L{want['leaves'][(*path, i)]['k']}")
        )
        state, weight = want["or"][path][1][a]
        assert lab == f"{state} ({weight:.3g})"
    for leaf in want["leaves"].values():
        k = leaf["k"]
        assert subgraphs[f"L{k}"].startswith(f"leaf {k}: weight {leaf['weight']:.3f}")
        # the leaf's tree edges, by the labels of its nodes
        node = {i: lab for i, lab in labels.items() if re.fullmatch(rf"L{k}n\d+", i)}
        edges = {(node[u], node[v]) for u, _, v in links if u in node}
        assert edges == leaf["edges"]


def test_the_drawing_is_the_or_tree_over_the_heaviest_leaves(asia_net):
    want = _expected(asia_net)
    fig = asia_net.draw(title=True)
    width, _ = fig.get_size_inches()
    assert width <= 10.0 + 1e-9
    heading = "\n".join(t.get_text() for t in fig.texts)  # the figure's suptitle
    assert heading.startswith("cutset network: 8 variables, depth 3,")
    titles = ["", *(ax.get_title() for ax in fig.axes if ax.get_title())]
    leaves = sorted(
        (x for x in want["leaves"].values() if x["n"] > 1 and not x["empty"]),
        key=lambda x: (-x["weight"], x["k"]),
    )[:6]
    assert titles[1:] == [
        f"leaf {x['k']}: weight {x['weight']:.3f}\n" + _short(x["way"]) for x in leaves
    ]
    # the OR-tree's boxes: every OR variable and every leaf, by their text
    boxes = [t.get_text() for t in fig.axes[0].texts if (t.get_gid() or "").startswith("node-")]
    assert sorted(b for b in boxes if not b.startswith("leaf ")) == sorted(
        name for name, _ in want["or"].values()
    )
    assert sorted(b for b in boxes if b.startswith("leaf ")) == sorted(
        f"leaf {x['k']}\n{'empty' if x['empty'] else str(x['n']) + ' variables'}"
        for x in want["leaves"].values()
    )
    # the branch labels on the OR-tree's edges
    branch_labels = [t.get_text() for t in fig.axes[0].texts if not t.get_gid()]
    assert sorted(branch_labels) == sorted(
        f"{state} ({w:.3g})" for _, bs in want["or"].values() for state, w in bs
    )


def _short(way: tuple) -> str:
    return ", ".join(way[:3]) + (", ..." if len(way) > 3 else "")


def test_a_big_network_is_summarised_within_max_leaves(alarm_net):
    want = _expected(alarm_net)
    assert len(want["leaves"]) > 16  # a network the cap is for
    text = alarm_net.to_dot(max_leaves=16)
    got = _dot_parts(text)
    closed, shown_leaves = {}, []
    for ident, (label, style) in got["nodes"].items():
        m = re.fullmatch(r"(.+)\\n(\d+) leaves", label)
        if m and "dashed" in style:
            closed[ident] = int(m.group(2))
        elif label.startswith("leaf "):
            shown_leaves.append(ident)
    shown_leaves += [c for c in got["clusters"] if c.startswith("L")]
    bottom = len(closed) + len(shown_leaves)
    assert bottom <= 16
    # every leaf accounted for: shown, or counted in its closed subtree
    paths = {_or_id(p): p for p in want["or"]}
    for ident, n in closed.items():
        path = paths[ident]
        below = [p for p in want["leaves"] if p[: len(path)] == path]
        assert n == len(below)
        # nothing left closed that would still fit: opening it adds its branches - 1
        assert bottom + len(want["or"][path][1]) - 1 > 16
    assert len(shown_leaves) + sum(closed.values()) == len(want["leaves"])
    # the heading's weight of the closed leaves, against the leaves' own weights
    note = re.search(r"(\d+) more leaves in (\d+) dashed subtrees? \(weight ([\d.]+);", text)
    assert note and int(note.group(1)) == sum(closed.values()) and int(note.group(2)) == len(closed)
    closed_weight = math.fsum(
        x["weight"]
        for p, x in want["leaves"].items()
        if any(p[: len(paths[c])] == paths[c] for c in closed)
    )
    assert float(note.group(3)) == pytest.approx(closed_weight, abs=5e-4)
    # the picture: bounded, at most 2,000 px wide at the command line's 200 dpi
    fig = alarm_net.draw(title=True, max_leaves=16)
    assert fig.get_size_inches()[0] <= 10.0 + 1e-9
    heading = "\n".join(t.get_text() for t in fig.texts)
    assert f"{sum(closed.values())} more leaves in {len(closed)} dashed subtree" in heading
    panels = [ax.get_title() for ax in fig.axes if ax.get_title().startswith("leaf ")]
    assert len(panels) == 6
    # each panel a leaf shown in the OR-tree (one the reader can find), the heaviest of them
    boxes = [t.get_text() for t in fig.axes[0].texts if (t.get_gid() or "").startswith("node-")]
    shown = {int(b.split("\n")[0][5:]) for b in boxes if b.startswith("leaf ")}
    drawn = [int(t.split(":")[0][5:]) for t in panels]
    assert set(drawn) <= shown
    by_number = {x["k"]: x for x in want["leaves"].values()}
    heaviest = sorted(
        (k for k in shown if by_number[k]["n"] > 1 and not by_number[k]["empty"]),
        key=lambda k: (-by_number[k]["weight"], k),
    )
    assert drawn == heaviest[:6]


def test_the_command_line_draws_a_cutset_network_within_2000_px(tmp_path):
    from PIL import Image

    from treelearn.cli._main import main

    df = pd.read_csv("datasets/alarm.csv").iloc[:3000, :16]
    data = tmp_path / "alarm.csv"
    df.to_csv(data, index=False)
    net = tl.CutsetNetwork(max_depth=8, min_rows=30, penalty=None).fit(df)
    tl.save(net, tmp_path / "net.json")
    picture = tmp_path / "net.png"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["show", str(tmp_path / "net.json"), "--plot", str(picture)]) == 0
    width, height = Image.open(picture).size
    assert width <= 2050, (width, height)


def _same_structure(a: tl.CutsetModel, b: tl.CutsetModel) -> bool:
    """Two networks alike, walked here: the same variable at every OR node and the same
    leaf trees (edges and roots) at the same places."""
    stack = [(a.root, b.root)]
    while stack:
        x, y = stack.pop()
        if isinstance(x, Leaf) != isinstance(y, Leaf):
            return False
        if isinstance(x, Leaf):
            if (x.tree is None) != (y.tree is None):
                return False
            if x.tree is not None and (
                set(x.tree.graph.edges) != set(y.tree.graph.edges)
                or set(x.tree.variables) != set(y.tree.variables)
                or set(x.tree.roots) != set(y.tree.roots)
            ):
                return False
            continue
        if x.variable != y.variable or len(x.children) != len(y.children):
            return False
        stack.extend(zip(x.children, y.children))
    return True


def test_a_bag_draws_each_distinct_network_once():
    df = pd.read_csv("datasets/asia.csv")
    # depth 1 on asia: 10 bootstrap networks, 7 distinct
    bag = tl.CutsetNetwork(max_depth=1, n_estimators=10, random_state=0).fit(df)
    nets, weights = bag.networks_, np.asarray(bag.weights_)
    # brute force: groups of pairwise-equal structures, by first member
    groups: list[list[int]] = []
    for i, net in enumerate(nets):
        for g in groups:
            if _same_structure(nets[g[0]], net):
                g.append(i)
                break
        else:
            groups.append([i])
    groups.sort(key=lambda g: (-math.fsum(weights[i] for i in g), g[0]))
    dot = bag.to_dot()
    titles = re.findall(r'^\s*subgraph cluster_s\d+ \{\n\s*label="(.*)";', dot, re.M)
    assert len(titles) == len(groups) < len(nets)
    for title, g in zip(titles, groups):
        who = f"network {g[0]}" if len(g) == 1 else f"{len(g)} networks ("
        assert title.startswith(who)
        assert title.endswith(f"weight {math.fsum(weights[i] for i in g):.3f}")
    mermaid = bag.to_mermaid()
    assert len(re.findall(r"^\s*subgraph s\d+\[", mermaid, re.M)) == len(groups)
    fig = bag.draw()
    panels = [ax.get_title() for ax in fig.axes if ax.get_title()]
    assert len(panels) == min(len(groups), 6)
    assert fig.get_size_inches()[0] <= 10.0 + 1e-9
    # a mixture built from repeated networks: the repeats are one structure
    a, b = nets[groups[0][0]], nets[groups[-1][0]]
    mix = tl.MixtureModel([a, b, a], [0.2, 0.45, 0.35])
    titles = re.findall(r'label="((?:\d+ )?networks? [^"]*)"', mix.to_dot())
    assert titles == ["2 networks (0, 2): weight 0.550", "network 1: weight 0.450"]
