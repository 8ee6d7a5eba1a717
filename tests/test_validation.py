"""The declarative parameter checks (treelearn._base.validation): every form, every edge;
every learner's bad option named in the one wording, numpy scalars taken as numbers."""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np
import pytest
from conftest import expect, tiny_frame

import treelearn as tl
from treelearn._base.validation import (
    BOOLEAN,
    InstanceOf,
    Interval,
    Options,
    check_param,
    check_params,
)
from treelearn.encoding._table import encode
from treelearn.sources._count import count


@pytest.mark.parametrize("value", [0, 0.0, 2.5, np.float32(0.5), np.int64(3), np.float64(1e300)])
def test_real_interval_takes_numpy_and_python_numbers(value):
    got = check_param("alpha", value, [Interval(Real, 0, None)])
    assert type(got) is float and got == float(value)


@pytest.mark.parametrize(
    "value",
    [
        -1,
        -1e-300,
        math.nan,
        math.inf,
        -math.inf,
        True,
        np.bool_(False),
        "1",
        None,
        [1],
        np.array([1.0]),
    ],
)
def test_real_interval_refuses(value):
    with pytest.raises(tl.TreelearnError, match=r"^alpha == .*, must be a finite number >= 0$"):
        check_param("alpha", value, [Interval(Real, 0, None)])


def test_closed_ends():
    right = Interval(Real, 0, 1, closed="right")
    assert not right.accepts(0) and right.accepts(1) and right.accepts(1e-300)
    left = Interval(Real, 0, 1, closed="left")
    assert left.accepts(0) and not left.accepts(1)
    neither = Interval(Real, 0, 1, closed="neither")
    assert not neither.accepts(0) and not neither.accepts(1) and neither.accepts(0.5)
    assert neither.describe() == "a finite number > 0 and < 1"


@pytest.mark.parametrize(
    "value, ok",
    [(1, True), (np.int32(7), True), (1.0, False), (True, False), (0, False), (10**30, True)],
)
def test_integer_interval(value, ok):
    if ok:
        assert check_param("n", value, [Interval(Integral, 1, None)]) == int(value)
        assert type(check_param("n", value, [Interval(Integral, 1, None)])) is int
    else:
        with pytest.raises(tl.TreelearnError, match="must be an integer >= 1"):
            check_param("n", value, [Interval(Integral, 1, None)])


def test_options_keep_bools_apart_from_numbers():
    assert check_param("x", 1, [Options(1, 2)]) == 1
    with pytest.raises(tl.TreelearnError, match=r"x == True, must be one of 1, 2"):
        check_param("x", True, [Options(1, 2)])
    with pytest.raises(tl.TreelearnError, match=r"must be one of 'a', 'b'"):
        check_param("x", np.array(["a", "b"]), [Options("a", "b")])


def test_none_and_several_forms_are_worded_together():
    forms = [Options("bic", "aic"), Interval(Real, None, None), None]
    assert check_param("forest", None, forms) is None
    assert check_param("forest", "bic", forms) == "bic"
    assert check_param("forest", 0.1, forms) == 0.1
    with pytest.raises(tl.TreelearnError) as err:
        check_param("forest", True, forms, note="an MI threshold in nats")
    assert str(err.value) == (
        "forest == True, must be one of 'bic', 'aic', a finite number or None "
        "(an MI threshold in nats)"
    )
    assert err.value.values == [True]


def test_instances_and_booleans():
    assert check_param("flag", np.bool_(True), [BOOLEAN]) is np.bool_(True)
    with pytest.raises(tl.TreelearnError, match="flag == 1, must be True or False"):
        check_param("flag", 1, [BOOLEAN])
    assert InstanceOf(dict).accepts({}) and not InstanceOf(int).accepts(False)
    assert InstanceOf(int, bool).accepts(False)


def test_check_params_checks_in_order_and_skips_absent_names():
    constraints = {"a": [Interval(Real, 0, None)], "b": [Options("x")], "c": [BOOLEAN]}
    assert check_params({"a": 2, "c": False}, constraints) == {"a": 2.0, "c": False}
    with pytest.raises(tl.TreelearnError, match=r"^a == -2"):  # the first bad one in order
        check_params({"b": "y", "a": -2}, constraints)
    with pytest.raises(tl.TreelearnError, match=r"b == 'y', must be one of 'x' \(say x\)$"):
        check_params({"b": "y"}, constraints, notes={"b": "say x"})


# ---------------------------------------------------------------------------------- hostile inputs
TINY = tiny_frame()  # four rows: text, numbers, booleans


OPTIONS = [
    ("alpha", "1"),
    ("alpha", None),
    ("alpha", float("nan")),
    ("alpha", -1),
    ("mi_alpha", "x"),
    ("mi_alpha", float("inf")),
    ("max_states", "5"),
    ("max_states", 0),
    ("max_states", 2.5),
    ("max_states", True),
    ("forest", float("nan")),
    ("forest", "x"),
    ("forest", True),
    ("equivalent_sample_size", "1"),
    ("chunksize", 0),
    ("missing", "x"),
]


@pytest.mark.parametrize("option, value", OPTIONS)
def test_bad_option_is_named(option, value):
    kwargs = {option: value}
    if option == "equivalent_sample_size":
        kwargs["prior"] = "bdeu"
    data = TINY if option != "chunksize" else "datasets/playtennis.csv"
    # one wording (treelearn._base.validation); chunksize is checked by the file reader
    expect(
        tl.TreelearnError,
        option if option == "chunksize" else f"{option} == {value!r}, must be",
        tl.chow_liu,
        data,
        **kwargs,
    )


def test_learner_options_have_one_wording():
    from treelearn.learners._em import chow_liu_em
    from treelearn.structure._trees import spanning_skeleton

    expect(
        tl.TreelearnError,
        "equivalent_sample_size == True, must be a finite number > 0",
        tl.tree_posterior,
        TINY,
        equivalent_sample_size=True,
    )
    assert tl.tree_posterior(TINY, equivalent_sample_size=np.float32(2)).equivalent_sample_size == 2
    expect(
        tl.TreelearnError,
        "missing == 'pairwise', must be one of 'error', 'drop'",
        tl.tree_posterior,
        TINY,
        missing="pairwise",
    )
    expect(
        tl.TreelearnError,
        "kind == 'poisson', must be one of 'categorical', 'gaussian'",
        tl.mi_graph,
        TINY,
        kind="poisson",
    )
    expect(
        tl.TreelearnError, "missing == 'skip', must be one of", tl.mi_graph, TINY, missing="skip"
    )
    expect(
        tl.TreelearnError,
        "unseen == 'drop', must be one of 'error', 'ignore'",
        encode,
        TINY,
        unseen="drop",
    )
    expect(
        tl.TreelearnError,
        "max_states == True, must be an integer >= 1",
        encode,
        TINY,
        max_states=True,
    )
    assert encode(TINY, max_states=np.int64(2)).states[0] == ("x", "y")
    stats = count(TINY.astype(object).mask(TINY.index.to_series() == 0, None), missing="pairwise")
    for bad in (
        {"max_iter": True},
        {"max_iter": 0},
        {"max_iter": 2.0},
        {"tol": -1.0},
        {"tol": float("nan")},
    ):
        name, value = next(iter(bad.items()))
        expect(
            tl.TreelearnError,
            f"{name} == {value!r}, must be",
            chow_liu_em,
            stats,
            lambda s: tl.chow_liu(TINY),
            **bad,
        )
    W = np.zeros((3, 3))
    expect(
        tl.TreelearnError,
        "n_classes == 0, must be an integer >= 1",
        spanning_skeleton,
        list("abc"),
        W,
        n_classes=0,
    )
    expect(
        tl.TreelearnError,
        "forest == 'mdl', must be one of 'bic', 'aic'",
        spanning_skeleton,
        list("abc"),
        W,
        forest="mdl",
    )


def test_numpy_scalars_are_numbers():
    # forest=np.int64(0) is a threshold of 0 nats: every positive-MI edge is kept
    assert tl.chow_liu(TINY, forest=np.int64(0)).graph.number_of_edges() == 2
    assert tl.chow_liu(TINY, alpha=np.float32(1)).settings["alpha"] == 1.0
