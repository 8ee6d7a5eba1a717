"""The README's Python examples run as written (with the bundled ``datasets/`` at hand)."""

from __future__ import annotations

import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def python_blocks() -> list[str]:
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        return re.findall(r"```python\n(.*?)```", f.read(), flags=re.S)


@pytest.mark.parametrize("index", range(len(python_blocks())))
def test_readme_python_block_runs(index, monkeypatch, tmp_path):
    pytest.importorskip("matplotlib").use("Agg")
    os.symlink(os.path.join(ROOT, "datasets"), tmp_path / "datasets")
    monkeypatch.chdir(tmp_path)  # files the example writes land here, not in the repository
    exec(compile(python_blocks()[index], f"README.md python block {index}", "exec"), {})
