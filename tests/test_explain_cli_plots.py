"""``treelearn explain`` and ``tl.plot_explanation``: the command's table is the Python
API's, and the pictures are drawn without pyplot's state."""

from __future__ import annotations

import io
import os

import numpy as np
import pandas as pd
import pytest

import treelearn as tl
from treelearn.cli._main import main

ASIA_PATH = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "datasets", "asia.csv"
)
ASIA = pd.read_csv(ASIA_PATH)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    out = tmp_path_factory.mktemp("explain")
    X, y = ASIA.drop(columns="either"), ASIA["either"]
    tan, tree = tl.TAN().fit(X, y), tl.chow_liu(ASIA)
    tl.save(tan, out / "tan.json")
    tl.save(tree, out / "tree.json")
    rows = out / "rows.csv"
    ASIA.head(5).to_csv(rows, index=False)
    return out, tan, tree, rows


def test_classifier_shapley_table_equals_the_api(files, capsys):
    out, tan, _, rows = files
    assert (
        main(
            [
                "explain",
                str(out / "tan.json"),
                str(rows),
                "--kind",
                "shapley",
                "--state",
                "yes",
                "-o",
                str(out / "e.csv"),
                "--plot",
                str(out / "e.png"),
            ]
        )
        == 0
    )
    table = pd.read_csv(out / "e.csv")
    expected = tan.explain(
        ASIA.head(5).drop(columns="either"), kind="shapley", target_class="yes"
    ).to_frame()
    np.testing.assert_allclose(
        table[list(tan.feature_names_in_)].to_numpy(),
        expected[list(tan.feature_names_in_)].to_numpy(),
        atol=1e-12,
    )
    assert (table["(target)"] == "yes").all()
    assert (out / "e.png").stat().st_size > 1000
    assert "exact" in capsys.readouterr().err


def test_tree_log_odds_to_stdout(files, capsys):
    out, _, tree, rows = files
    assert main(["explain", str(out / "tree.json"), str(rows), "--target", "lung"]) == 0
    table = pd.read_csv(io.StringIO(capsys.readouterr().out))
    expected = tree.explain(ASIA.head(5), "lung")
    np.testing.assert_allclose(table["(prediction)"], expected.prediction, atol=1e-12)
    np.testing.assert_allclose(
        table.drop(columns=["(target)", "(base)", "(prediction)"]), expected.values, atol=1e-12
    )


def test_explain_errors(files, capsys):
    out, _, _, rows = files
    assert main(["explain", str(out / "tree.json"), str(rows)]) == 1
    assert "give --target VAR" in capsys.readouterr().err
    assert main(["explain", str(out / "tan.json"), str(rows), "--target", "lung"]) == 1
    assert "predicts 'either', not 'lung'" in capsys.readouterr().err
    assert main(["explain", str(out / "tan.json"), str(rows), "--state", "maybe"]) == 1
    assert "'maybe' is not a class" in capsys.readouterr().err


def test_pictures(files):
    import matplotlib.pyplot as plt

    _, tan, _, _ = files
    e = tan.explain(ASIA.drop(columns="either").head(30), kind="shapley", output="log_odds")
    before = plt.get_fignums()
    waterfall = tl.plot_explanation(e, row=2)
    ax = waterfall.axes[0]
    assert len(ax.patches) == 7  # one bar per feature
    # shap's layout: from the base at the bottom (the smallest contribution) up to the
    # prediction at the top (the largest)
    assert ax.patches[0].get_x() == pytest.approx(e.base.iloc[2], abs=1e-12)
    top = ax.patches[-1]
    assert top.get_x() + top.get_width() == pytest.approx(e.prediction.iloc[2], abs=1e-9)
    assert abs(top.get_width()) == pytest.approx(e.values.iloc[2].abs().max(), abs=1e-12)
    swarm = tl.plot_explanation(e)
    assert len(swarm.axes[0].collections) == 7  # a row of dots per feature
    bar = tl.plot_explanation(e, kind="bar", max_features=3)
    assert len(bar.axes[0].patches) == 3
    assert plt.get_fignums() == before  # nothing left in pyplot
    fig, axes = plt.subplots(1, 2)
    assert tl.plot_explanation(e, row=0, ax=axes[1]) is fig
    plt.close(fig)
    with pytest.raises(tl.TreelearnError, match="row == 99"):
        tl.plot_explanation(e, row=99)
    with pytest.raises(tl.TreelearnError, match="kind == 'pie'"):
        tl.plot_explanation(e, kind="pie")
