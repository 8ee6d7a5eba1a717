"""A comma-separated file whose numbers carry the same comma as thousands separator, each
quoted (``"76,705"``, as spreadsheets write them): read as numbers, from Python with
``thousands=","`` and by the command, which finds the separator itself (issue 39, item 4).

Before, the command found the separator, read the file again with ``thousands=","`` and
refused its own second read ("thousands=',' is the same character as sep=','", worded for
Python): a separator inside a quoted field is never the column separator, and pandas reads
it. The numbers expected here are the text's digits, computed by ``int(text.replace(",",
""))``.
"""

from __future__ import annotations

import subprocess

import pandas as pd
import pytest
from conftest import installed_command, run_cli

import treelearn as tl

PRICES = ["76,705", "1,200", "3,400", "12,000", "950", "2,050"]
TOWNS = ["a", "b", "a", "b", "a", "b"]


@pytest.fixture
def quoted(tmp_path):
    path = tmp_path / "prices.csv"
    lines = ["price,town"] + [f'"{p}",{t}' for p, t in zip(PRICES, TOWNS)]
    path.write_text("\n".join(lines) + "\n")
    return path


def _numbers() -> list[int]:
    return [int(p.replace(",", "")) for p in PRICES]


def test_python_reads_quoted_thousands_in_a_comma_file(quoted):
    df = tl.io.read_data(quoted, thousands=",")
    assert pd.api.types.is_integer_dtype(df["price"].dtype)
    assert df["price"].tolist() == _numbers()
    assert df["town"].tolist() == TOWNS
    # without the option the column stays text, as pandas reads it
    assert tl.io.read_data(quoted)["price"].tolist() == PRICES


def test_the_same_character_is_still_refused_where_it_misreads():
    from treelearn.sources._dialect import check_reading_options

    check_reading_options(sep=",", thousands=",")  # a quoted field's commas: allowed
    with pytest.raises(tl.TreelearnError, match="same character"):
        check_reading_options(decimal=",", thousands=",")
    with pytest.raises(tl.TreelearnError, match="same character"):
        check_reading_options(sep=";", decimal=";")


def test_the_command_finds_the_separator_and_learns(quoted, tmp_path):
    saved = tmp_path / "m.json"
    rc, out, err = run_cli("learn", quoted, "--discretize", "2", "-o", saved)
    assert rc == 0, err
    assert "thousands separator" in err  # the command said what it did
    assert "same character" not in err
    assert "learned from 6 rows" in out
    # read as numbers: cut into 2 bins (text would be 6 states), the bins those the
    # Discretizer gives the numbers the text holds
    expected = tl.Discretizer(bins=2).fit(pd.DataFrame({"price": _numbers()}))
    bins = tl.load(saved).states["price"]
    assert len(bins) == 2
    assert list(bins) == list(
        expected.transform(pd.DataFrame({"price": _numbers()}))["price"].cat.categories
    )
    rc, out2, err2 = run_cli("learn", quoted, "--thousands", ",", "--discretize", "2")
    assert rc == 0, err2
    assert out2 == out  # found or given: the same model


@pytest.mark.slow
def test_the_installed_command_learns_the_file(quoted):
    exe = installed_command()
    if exe is None:
        pytest.skip("the treelearn command is not installed")
    done = subprocess.run(
        [exe, "learn", str(quoted)], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "learned from 6 rows" in done.stdout
