"""Kernel models' files from before the binned path (issue 40): a kernel forest's loads as
``method="auto"`` (its densities unchanged: tests/test_kernel_binned.py); a KernelTAN file
without its ``method`` option is refused, naming the option and the fix, never loaded as
another model."""

from __future__ import annotations

import json

import numpy as np
import pytest

import treelearn as tl


@pytest.fixture
def saved(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] + 0.3 * rng.normal(size=300) > 0).astype(int)
    clf = tl.KernelTAN(random_state=0).fit(X, y)
    path = tmp_path / "kernel_tan.json"
    tl.save(clf, path)
    return clf, X, path


def test_a_kernel_tan_file_round_trips(saved):
    clf, X, path = saved
    back = tl.load(path)
    assert back.method == "auto"
    np.testing.assert_array_equal(back.predict_proba(X), clf.predict_proba(X))


def test_a_kernel_tan_file_before_the_method_option_is_refused_naming_it(saved, tmp_path):
    _, _, path = saved
    raw = json.loads(path.read_text())
    del raw["state"]["params"]["method"]  # as written before method= existed
    old = tmp_path / "old.json"
    old.write_text(json.dumps(raw))
    with pytest.raises(tl.InvalidModelError, match=r"lacks the option\(s\) \['method'\]") as info:
        tl.load(old)
    assert "older treelearn" in str(info.value) and "learn the model again" in str(info.value)


@pytest.mark.parametrize("field", ["centres", "weights", "factor", "kernel"])
def test_a_kernel_tan_file_missing_its_kernels_is_refused_naming_the_field(saved, tmp_path, field):
    _, _, path = saved
    raw = json.loads(path.read_text())
    del raw["state"][field]
    old = tmp_path / "old.json"
    old.write_text(json.dumps(raw))
    with pytest.raises(tl.InvalidModelError, match=f"'{field}'"):
        tl.load(old)
