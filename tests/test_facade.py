"""The lazy facade ``treelearn/__init__.py``: every public name resolves, and the heavy
libraries (scikit-learn, SciPy, matplotlib, pgmpy) load only where they are used."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

import treelearn as tl

HEAVY = ("sklearn", "scipy", "matplotlib", "pgmpy")
INIT = Path(tl.__file__)


def loaded_after(code: str) -> list[str]:
    """The heavy top-level packages in ``sys.modules`` after running ``code`` in a fresh
    interpreter (a subprocess: this process has imported everything already)."""
    probe = f"{code}\nimport sys\nprint(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    out = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        cwd=INIT.parent.parent,
    )
    return ast.literal_eval(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("name", tl.__all__)
def test_every_public_name_resolves_to_its_module_object(name):
    value = getattr(tl, name)
    assert value is not None
    module = getattr(value, "__module__", None)
    if module is not None and module.startswith("treelearn."):
        # the object the facade hands out is the one its module defines
        assert getattr(importlib.import_module(module), name, value) is value


@pytest.mark.parametrize("role", sorted(tl.ROLES))
def test_each_role_lists_its_names_once_and_types_them(role):
    module = tl.ROLES[role]
    # the names type checkers see (if TYPE_CHECKING:) are exactly those loaded lazily
    tree = ast.parse(Path(module.__file__).read_text())
    block = next(
        s
        for s in tree.body
        if isinstance(s, ast.If) and getattr(s.test, "id", None) == "TYPE_CHECKING"
    )
    package = module.__name__ if module.__file__.endswith("__init__.py") else "treelearn"
    typed = {
        (importlib.util.resolve_name("." * node.level + (node.module or ""), package), a.name)
        for node in block.body
        for a in node.names
    }
    assert typed == {(f"treelearn.{source}", name) for name, source in module.NAMES.items()}
    assert module.__all__ == sorted(module.NAMES)
    for name in module.NAMES:  # the role's name is the flat one
        assert getattr(module, name) is getattr(tl, name)


def test_the_flat_names_are_the_roles_names_each_in_one_role():
    listed = [name for role in tl.ROLES.values() for name in role.NAMES]
    assert len(listed) == len(set(listed))  # one role per name
    assert set(tl._LAZY) == set(listed)
    # the exceptions and warnings (errors.py, imported eagerly) are the other names
    assert set(tl.__all__) == set(tl._LAZY) | {
        n for n in tl.__all__ if n.endswith(("Error", "Warning"))
    }


def test_star_import_and_dir_and_unknown_names():
    namespace: dict = {}
    exec("from treelearn import *", namespace)
    assert set(tl.__all__) <= set(namespace)
    assert set(tl.__all__) <= set(dir(tl))
    with pytest.raises(AttributeError, match="no attribute 'chow_lui'"):
        _ = tl.chow_lui


def test_import_treelearn_loads_no_heavy_library():
    assert loaded_after("import treelearn") == []


def test_chow_liu_command_line_path_loads_no_heavy_library():
    code = (
        "import sys, contextlib, io\n"
        "sys.argv = ['treelearn', 'learn', 'datasets/asia.csv']\n"
        "from treelearn.cli._main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    main()\n"
    )
    assert loaded_after(code) == []


def test_a_classifier_still_loads_scikit_learn_when_used():
    assert "sklearn" in loaded_after("import treelearn as tl\ntl.NaiveBayes")
