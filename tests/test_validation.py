"""The declarative parameter checks (treelearn._base.validation): every form, every edge."""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np
import pytest

import treelearn as tl
from treelearn._base.validation import (
    BOOLEAN,
    InstanceOf,
    Interval,
    Options,
    check_param,
    check_params,
)


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
