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


def test_every_picture_the_readmes_show_is_in_the_repository():
    # a fresh clone must have them: *.png is ignored by .gitignore except docs/ and examples/
    for name in ("README.md", os.path.join("benchmarks", "README.md")):
        with open(os.path.join(ROOT, name), encoding="utf-8") as f:
            pictures = re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", f.read())
        for picture in pictures:
            path = os.path.normpath(os.path.join(ROOT, os.path.dirname(name), picture))
            assert os.path.isfile(path), (name, picture)
            if path.endswith(".png"):
                with open(path, "rb") as f:
                    assert f.read(8) == b"\x89PNG\r\n\x1a\n", (name, picture)
