"""The DEBD summary table of ``benchmarks/bench_density.py --table``: the choice on the
validation rows among the new columns run, refits replacing earlier lines, and the tallies
the issue-23 criterion is read from (numbers worked by hand below)."""

import json
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), os.pardir, "benchmarks"))
bench_density = pytest.importorskip("bench_density")


def _write(path, lines):
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return str(path)


def test_choice_on_validation_refits_and_tallies(tmp_path):
    first = _write(
        tmp_path / "a.jsonl",
        [
            {"name": "nltcs", "column": "tree", "test": -6.8, "s": 1.0},
            {"name": "nltcs", "column": "mixture", "valid": -6.0, "test": -6.0, "s": 2.0},
            # best on the validation rows, worse on the test rows than the mixture: a loss
            {
                "name": "nltcs",
                "column": "HCLT",
                "valid": -5.9,
                "test": -6.05,
                "s": 3.0,
                "label": "h=16",
            },
            {
                "name": "nltcs",
                "column": "cutset",
                "valid": -6.2,
                "test": -5.5,
                "s": 1.0,
                "label": "depth 10",
            },
            {"name": "plants", "column": "tree", "test": -16.5, "s": 1.0},
            {"name": "plants", "column": "mixture", "valid": -13.0, "test": -13.1, "s": 2.0},
            {
                "name": "plants",
                "column": "HCLT",
                "valid": -14.0,
                "test": -14.0,
                "s": 3.0,
                "label": "h=8",
            },
            {"name": "plants", "column": "stopped", "budget": 10.0},
            # no mixture: counted nowhere
            {"name": "kosarek", "column": "tree", "test": -11.5, "s": 1.0},
            {
                "name": "kosarek",
                "column": "cutset",
                "valid": -11.0,
                "test": -11.0,
                "s": 1.0,
                "label": "depth 10",
            },
        ],
    )
    # a refit of plants' HCLT in a second file replaces the first line: now a win
    second = _write(
        tmp_path / "b.jsonl",
        [
            {
                "name": "plants",
                "column": "HCLT",
                "valid": -12.5,
                "test": -12.6,
                "s": 9.0,
                "label": "h=16",
            },
        ],
    )
    table = bench_density.summary_table([first, second])
    lines = table.splitlines()
    nltcs = next(line for line in lines if line.startswith("| nltcs "))
    plants = next(line for line in lines if line.startswith("| plants "))
    kosarek = next(line for line in lines if line.startswith("| kosarek "))
    assert "HCLT (h=16)" in nltcs and "| -0.050 |" in nltcs and "| +0.750 |" in nltcs
    assert "| -12.600 |" in plants and "| +0.500 |" in plants and "| +3.900 |" in plants
    assert "| — |" in kosarek and "cutset (depth 10)" in kosarek
    assert lines[-1] == (
        "shown: 2 of 20 datasets; the chosen model beats the tree on 2 of 2 "
        "and the mixture on 1 of 2"
    )
