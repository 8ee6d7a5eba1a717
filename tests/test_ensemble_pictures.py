"""Issue 39 item 6: an ensemble's picture draws each structure once (members with the same
edges and roots share a panel titled with how many they are and their summed weight),
the heaviest first, at most ``max_panels`` panels no wider than 2,000 px at 200 dpi."""

import itertools
import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

import treelearn as tl

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

from treelearn.viz._draw import (  # noqa: E402
    PANELS_MAX_WIDTH,
    draw_ensemble,
    group_structures,
)


@pytest.fixture(scope="module")
def asia():
    return pd.read_csv("datasets/asia.csv")


@pytest.fixture(scope="module")
def structures(asia):
    """Four distinct trees over asia: one learned tree and three re-rooted or re-learned."""
    trees = [
        tl.chow_liu(asia),
        tl.chow_liu(asia, root="smoke"),
        tl.chow_liu(asia.iloc[:300]),
        tl.chow_liu(asia, root="dysp"),
    ]
    edge_sets = [frozenset(t.graph.edges) for t in trees]
    assert len(set(edge_sets)) == 4  # the fixture's premise: four different pictures
    return trees


def brute_force_groups(models, weights):
    """Pairwise comparison of every member's directed edge set and roots (no hashing):
    members i and j in one group iff equal; exact weight sums as fractions."""
    n = len(models)
    same = [
        [
            set(models[i].graph.edges) == set(models[j].graph.edges)
            and set(models[i].roots) == set(models[j].roots)
            and set(models[i].variables) == set(models[j].variables)
            for j in range(n)
        ]
        for i in range(n)
    ]
    seen, groups = set(), []
    for i in range(n):
        if i in seen:
            continue
        members = tuple(j for j in range(n) if same[i][j])
        seen.update(members)
        groups.append((members, sum(Fraction(float(weights[j])) for j in members)))
    return groups


@pytest.mark.parametrize("seed", range(6))
def test_grouping_equals_brute_force(structures, seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 15))
    picks = rng.integers(0, len(structures), size=n)
    models = [structures[p] for p in picks]
    weights = rng.dirichlet(np.ones(n))
    groups = group_structures(models, weights)
    expected = brute_force_groups(models, weights)
    assert sorted(g.members for g in groups) == sorted(m for m, _ in expected)
    exact = dict(expected)
    for g in groups:
        assert g.weight == float(exact[g.members])  # fsum: the correctly rounded sum
    # every member accounted for, once
    assert sorted(itertools.chain.from_iterable(g.members for g in groups)) == list(range(n))
    # the heaviest first
    assert [g.weight for g in groups] == sorted((g.weight for g in groups), reverse=True)


def test_grouping_follows_the_edges_not_the_objects(asia, structures):
    again = tl.chow_liu(asia)  # another object, the same tree
    assert again is not structures[0]
    groups = group_structures([structures[0], structures[1], again], [0.25, 0.5, 0.25])
    assert [g.members for g in groups] == [(0, 2), (1,)]  # a tie: the earlier member first
    assert groups[0].weight == 0.5


def test_panels_titled_by_members_and_summed_weight(structures):
    a, b, c, d = structures
    models = [a, b, a, c, a, b, d]
    weights = [0.1, 0.2, 0.15, 0.05, 0.3, 0.12, 0.08]
    fig = draw_ensemble(models, weights, heading="seven trees")
    titles = [ax.get_title() for ax in fig.axes]
    wa = math.fsum([0.1, 0.15, 0.3])
    wb = math.fsum([0.2, 0.12])
    assert titles == [
        f"3 components (0, 2, 4): weight {wa:.3f}",
        f"2 components (1, 5): weight {wb:.3f}",
        "component 6: weight 0.080",
        "component 3: weight 0.050",
    ]
    heading = fig._suptitle.get_text()
    assert heading.startswith("seven trees\n4 structures, each drawn once")
    # each panel draws its group's structure: the labels are that tree's variables and
    # the panel's lines as many as its edges
    for ax, tree in zip(fig.axes, (a, b, d, c)):
        assert {t.get_text() for t in ax.texts if t.get_gid()} >= set(tree.variables)
    assert fig.get_size_inches()[0] <= PANELS_MAX_WIDTH + 1e-9


def test_max_panels_names_the_rest(structures):
    models = list(structures) * 2
    weights = [0.3, 0.2, 0.1, 0.05, 0.15, 0.1, 0.05, 0.05]
    fig = draw_ensemble(models, weights, max_panels=2)
    assert len(fig.axes) == 2
    rest_weight = math.fsum([0.1, 0.05, 0.05, 0.05])
    assert fig._suptitle.get_text().endswith(
        f"the rest: 2 more structures (4 components, weight {rest_weight:.3f}; "
        "max_panels= for more)"
    )
    with pytest.raises(tl.TreelearnError, match="max_panels"):
        draw_ensemble(models, weights, max_panels=0)
    with pytest.raises(tl.TreelearnError, match="one weight per member"):
        draw_ensemble(models, weights[:3])
    with pytest.raises(tl.TreelearnError, match="at least one member"):
        draw_ensemble([], [])


def test_a_bag_draws_each_structure_once(asia):
    bag = tl.BaggedTrees(n_estimators=10, random_state=0).fit(asia)
    trees, weights = bag.model_.components, bag.model_.weights
    expected = brute_force_groups(trees, weights)
    assert len(expected) < len(trees)  # the premise: bootstrap trees repeat on 5,000 rows
    fig = bag.draw(title=True, edge_labels=True)  # what the command line's --plot calls
    assert len(fig.axes) == min(6, len(expected))
    counts = sorted(
        (len(m) for m, _ in expected), reverse=True
    )  # the heaviest groups are the largest: the bag's weights are equal
    shown = [ax.get_title() for ax in fig.axes]
    for title, count in zip(shown, counts):
        assert title.startswith(f"{count} components" if count > 1 else "component ")
        assert title.endswith(f"weight {count / len(trees):.3f}")
    width, _ = fig.get_size_inches()
    assert width <= PANELS_MAX_WIDTH + 1e-9
    assert f"mixture of {len(trees)} trees" in fig._suptitle.get_text()


def test_a_mixture_of_distinct_trees_keeps_a_panel_each(asia):
    mix = tl.TreeMixture(n_components=3, random_state=0).fit(asia)
    trees, weights = mix.model_.components, mix.model_.weights
    if len(brute_force_groups(trees, weights)) != 3:
        pytest.skip("EM found repeated structures here")
    fig = mix.draw()
    order = np.argsort(-np.asarray(weights), kind="stable")
    assert [ax.get_title() for ax in fig.axes] == [
        f"component {k}: weight {weights[k]:.3f}" for k in order
    ]


def test_a_multinet_draws_classes_sharing_a_tree_once(asia):
    X, y = asia.drop(columns="either"), asia["either"]
    clf = tl.ChowLiuMultinet().fit(X, y)
    prior = np.exp(clf.class_log_prior_)
    prior = prior / prior.sum()
    # both classes given one tree (the first class's): one structure, the priors summed
    first = clf.classes_[0]
    clf.models_ = dict.fromkeys(clf.classes_, clf.models_[first])
    fig = clf.draw(title="asia")
    names = ", ".join(str(c) for c in clf.classes_)
    assert [ax.get_title() for ax in fig.axes] == [
        f"either = {names}: prior {math.fsum(prior):.3f}"
    ]
    assert fig._suptitle.get_text() == "asia\n1 structure, each drawn once"


def test_show_plot_of_a_saved_bag_follows(asia, tmp_path):
    from conftest import run_cli

    bag = tl.BaggedTrees(n_estimators=8, random_state=1).fit(asia)
    bag.save(tmp_path / "bag.json")
    groups = brute_force_groups(bag.model_.components, bag.model_.weights)
    rc, _, stderr = run_cli("show", tmp_path / "bag.json", "--plot", tmp_path / "bag.png")
    assert rc == 0, stderr
    image = matplotlib.image.imread(tmp_path / "bag.png")
    # the command line saves at 200 dpi: 10 inches are 2,000 px (and the saved margin)
    assert image.shape[1] <= 2000 + 50
    # the same picture as the bag's draw() saved as the command line saves it
    from treelearn.cli._common import save_figure

    fig = bag.draw(title=True, edge_labels=True)
    save_figure(fig, tmp_path / "python.png")
    np.testing.assert_array_equal(image, matplotlib.image.imread(tmp_path / "python.png"))
    # a panel per structure, and every member counted in the panel titles
    assert len(groups) <= 6  # the premise: all shown (8 bootstrap trees of asia)
    assert len(fig.axes) == len(groups)
    counted = [
        int(t.split()[0]) if t.split()[1] == "components" else 1
        for t in (ax.get_title() for ax in fig.axes)
    ]
    assert sum(counted) == len(bag.model_.components)
