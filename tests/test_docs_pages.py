"""The documentation pages' Python examples run as written (the README's sections moved
into ``docs/``; tests/test_readme.py runs the README's own)."""

from __future__ import annotations

import glob
import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGES = sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
PAGES += sorted(glob.glob(os.path.join(ROOT, "docs", "guide", "*.md")))


def blocks() -> list[tuple[str, int, str]]:
    found = []
    for page in PAGES:
        with open(page, encoding="utf-8") as f:
            code = re.findall(r"```python\n(.*?)```", f.read(), flags=re.S)
        name = os.path.relpath(page, ROOT)
        found += [(name, i, block) for i, block in enumerate(code)]
    return found


def test_the_pages_hold_examples():
    assert len(blocks()) >= 30  # the README's examples moved here, none lost


@pytest.mark.parametrize("page, index, code", blocks(), ids=[f"{p}:{i}" for p, i, _ in blocks()])
def test_docs_python_block_runs(page, index, code, monkeypatch, tmp_path):
    pytest.importorskip("matplotlib").use("Agg")
    os.symlink(os.path.join(ROOT, "datasets"), tmp_path / "datasets")
    monkeypatch.chdir(tmp_path)  # files the example writes land here, not in the repository
    # a page's blocks build on each other (a page is read top to bottom): run its earlier
    # blocks first, in one namespace
    namespace: dict = {}
    for name, i, earlier in blocks():
        if name == page and i < index:
            exec(compile(earlier, f"{page} python block {i}", "exec"), namespace)
    exec(compile(code, f"{page} python block {index}", "exec"), namespace)
