"""read_bif's BIF reader builds pgmpy's pyparsing grammar once per process (it costs a
second or more per file otherwise): what it parses is what pgmpy's own ``BIFReader``
parses, file after file."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import treelearn as tl
from treelearn.export._pgmpy import bif_reader

pytest.importorskip("pgmpy")


def tan_bif() -> str:
    """The BIF file, written by pgmpy, of a TAN (features with two parents)."""
    from pgmpy.readwrite import BIFWriter

    tennis = pd.read_csv("datasets/playtennis.csv").drop(columns="Day")
    tan = tl.TAN(numbers="states").fit(tennis.drop(columns="PlayTennis"), tennis["PlayTennis"])
    return str(BIFWriter(tan.model_.to_pgmpy()))


def cpds(network) -> dict:
    return {
        cpd.variable: (cpd.variables, cpd.state_names, cpd.get_values())
        for cpd in network.get_cpds()
    }


def test_the_cached_reader_parses_a_file_as_pgmpy_does_every_time():
    from pgmpy.readwrite import BIFReader

    text = tan_bif()
    theirs = BIFReader(string=text).get_model()
    assert max(len(theirs.get_parents(v)) for v in theirs.nodes) == 2
    for round_ in range(2):  # the second read parses with the grammar built by the first
        ours = bif_reader()(string=text).get_model()
        assert set(ours.edges()) == set(theirs.edges()), round_
        mine, pgmpys = cpds(ours), cpds(theirs)
        assert mine.keys() == pgmpys.keys()
        for variable, (names, states, values) in pgmpys.items():
            assert mine[variable][0] == names and mine[variable][1] == states
            np.testing.assert_array_equal(mine[variable][2], values)


def test_the_grammar_is_built_once():
    text = tan_bif()
    first, second = bif_reader()(string=text), bif_reader()(string=text.replace("\n", "\n\n"))
    assert first.get_variable_grammar() is second.get_variable_grammar()
    assert first.get_probability_grammar() is second.get_probability_grammar()
    assert bif_reader() is bif_reader()
