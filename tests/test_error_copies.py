"""Errors re-worded on their way out (the turn of a column to text, a file's rows, the
command's fixes) are copies with fields of their own, whatever ``copyreg`` holds.

Found in the whole main job: tblib, which Dask's ``distributed`` installs when a test starts
a cluster, registers a reducer for every exception class, and ``copy.copy`` of an error
then *shared* the original's ``__dict__``: setting the copy's ``reason`` changed the
original's first, so the message kept its old words ("numbers until row ..." was lost).
"""

from __future__ import annotations

import copy
import copyreg

import numpy as np
import pytest

import treelearn as tl
from treelearn.encoding._table import too_many_states_error
from treelearn.sources._chunks import located
from treelearn.sources._kinds import turn_reason


@pytest.fixture
def tblib_installed():
    """tblib's reducers for every exception class (as ``distributed`` installs them), taken
    out again after the test."""
    pickling_support = pytest.importorskip("tblib.pickling_support")
    before = dict(copyreg.dispatch_table)
    pickling_support.install()
    yield
    for cls in [c for c in copyreg.dispatch_table if c not in before]:
        del copyreg.dispatch_table[cls]


def _error() -> tl.TooManyStatesError:
    return too_many_states_error("x", np.dtype(object), 300, 100)


def test_copy_copy_shares_the_fields_under_tblib(tblib_installed):
    # the condition the fix is for: if this stops holding, copy.copy is safe again
    err = _error()
    assert copy.copy(err).__dict__ is err.__dict__


def test_the_turn_is_said_in_the_copy_and_the_original_keeps_its_words(tblib_installed):
    err = _error()
    before = (str(err), err.reason)
    out = turn_reason(err, (11321, "unknown"))
    said = " (numbers until row 11321, which holds 'unknown')"
    assert out.reason == before[1] + said
    assert str(out) == before[0].replace(before[1], before[1] + said, 1)
    assert (str(err), err.reason) == before
    assert type(out) is type(err) and out.column == "x" and out.n_states == 300


def test_located_and_copied_keep_the_original(tblib_installed):
    err = _error()
    out = located(err, "data.csv, rows 0-999: ")
    assert str(out) == "data.csv, rows 0-999: " + str(err)
    copied = err.copied()
    copied.fixes = ()
    assert err.fixes == ("drop", "max_states") and str(copied) == str(err)


def test_the_same_without_tblib():
    err = _error()
    out = turn_reason(err, (5, "n/a"))
    assert "(numbers until row 5, which holds 'n/a')" in str(out)
    assert "numbers until" not in str(err) and "numbers until" not in err.reason
