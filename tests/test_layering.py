"""The package's layering rules, read from the source with ``ast``.

1. No import cycle among treelearn's modules. Imports inside functions count (they
   still tie the modules together); imports under ``if TYPE_CHECKING:`` do not
   (they never run). ``treelearn/__init__.py`` is the facade and not a node, as in
   ``shared/tools/import_cycles.py``.
2. No underscore name used across modules: neither imported (``from .data import
   _x``) nor reached as an attribute of anything but ``self``/``cls``
   (``model._cpts()``, ``classify._labels``, ``getattr(clf, "_check")``) where the
   name is not defined in the module that uses it. Dunder names are fine, and so is
   the documented namedtuple API (``_replace``, ``_asdict``...).
3. Each module's ``__all__`` lists only names defined in it (a package
   ``__init__.py`` may list what it imports: re-exporting is its job; a lazy facade,
   one that defines a module ``__getattr__``, may list what it imports under
   ``if TYPE_CHECKING:``, and tests/test_facade.py checks every such name resolves).

The checker runs on a mapping ``{relative path: source}``, so its self-tests below
run it on small synthetic packages: the test on the real package cannot pass
because the checker finds nothing.
"""

from __future__ import annotations

import ast
import dataclasses
import itertools
import os
import textwrap
from collections.abc import Iterator, Mapping, Sequence

PACKAGE_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "treelearn")

#: namedtuple's public API is spelled with a leading underscore
NAMEDTUPLE_API = frozenset({"_asdict", "_replace", "_fields", "_field_defaults", "_make"})
#: builtins that reach an attribute named by a string
ATTRIBUTE_BUILTINS = frozenset({"getattr", "setattr", "hasattr", "delattr"})


# ----------------------------------------------------------------------------- the checker
@dataclasses.dataclass(frozen=True)
class Module:
    name: str  # dotted: "pkg.data"; a package's __init__ is "pkg"
    path: str  # relative path, for messages: "pkg/data.py"
    is_init: bool
    tree: ast.Module


def is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def read_package(pkg_dir: str) -> dict[str, str]:
    """``{relative path: source}`` of every ``.py`` file under ``pkg_dir``."""
    root = os.path.dirname(os.path.abspath(pkg_dir))
    files = {}
    for dirpath, _, names in os.walk(pkg_dir):
        for f in sorted(names):
            if f.endswith(".py"):
                path = os.path.join(dirpath, f)
                with open(path, encoding="utf-8") as fh:
                    files[os.path.relpath(path, root).replace(os.sep, "/")] = fh.read()
    return files


def parse_modules(files: Mapping[str, str]) -> dict[str, Module]:
    modules = {}
    for path, source in files.items():
        dotted = path[: -len(".py")].replace("/", ".")
        is_init = dotted.endswith(".__init__") or dotted == "__init__"
        name = dotted.removesuffix(".__init__")
        modules[name] = Module(name, path, is_init, ast.parse(source, filename=path))
    return modules


def is_type_checking(test: ast.expr) -> bool:
    """``TYPE_CHECKING`` or ``typing.TYPE_CHECKING`` (any module prefix)."""
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def type_checking_only(tree: ast.AST) -> set[int]:
    """ids of the nodes under ``if TYPE_CHECKING:`` (the body only: ``else:`` runs)."""
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and is_type_checking(node.test):
            skip.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    return skip


def runtime_imports(module: Module) -> Iterator[tuple[str, list[str], int]]:
    """``(absolute base, imported names, line)`` of every import that runs, at any depth."""
    skip = type_checking_only(module.tree)
    package = module.name if module.is_init else module.name.rpartition(".")[0]
    for node in ast.walk(module.tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, [], node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            yield base, [alias.name for alias in node.names], node.lineno


def defined_names(tree: ast.AST) -> set[str]:
    """Every name the module defines anywhere: functions, classes, methods, variables,
    arguments, import aliases, and attributes assigned on ``self``/``cls``."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.ctx, ast.Store)
            and isinstance(node.value, ast.Name)
            and node.value.id in ("self", "cls")
        ):
            names.add(node.attr)
    return names


def module_level_bindings(tree: ast.Module) -> tuple[set[str], set[str]]:
    """Names bound when the module runs, outside functions and classes: ``(defined, imported)``.

    Statements under ``if``/``try``/``with``/``for`` at module level count, except
    the body of ``if TYPE_CHECKING:``.
    """
    defined: set[str] = set()
    imported: set[str] = set()
    targets: list[ast.expr] = []

    def visit(stmts: list[ast.stmt]) -> None:
        for stmt in stmts:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                defined.add(stmt.name)
            elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
                imported.update((a.asname or a.name).split(".")[0] for a in stmt.names)
            elif isinstance(stmt, ast.Assign):
                targets.extend(stmt.targets)
            elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign, ast.For)):
                targets.append(stmt.target)
            elif isinstance(stmt, ast.With):
                targets.extend(item.optional_vars for item in stmt.items if item.optional_vars)
            elif type(stmt).__name__ == "TypeAlias":  # ``type X = ...`` (Python 3.12+)
                targets.append(stmt.name)
            if isinstance(stmt, ast.If):
                if not is_type_checking(stmt.test):
                    visit(stmt.body)
                visit(stmt.orelse)
            elif isinstance(stmt, ast.Try):
                visit(stmt.body)
                for handler in stmt.handlers:
                    visit(handler.body)
                visit(stmt.orelse)
                visit(stmt.finalbody)
            elif isinstance(stmt, (ast.With, ast.For, ast.While)):
                visit(stmt.body)
                visit(getattr(stmt, "orelse", []))

    visit(tree.body)
    defined.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
    return defined, imported


def type_checking_imports(tree: ast.Module) -> set[str]:
    """The names imported under a module-level ``if TYPE_CHECKING:``."""
    names: set[str] = set()
    for stmt in tree.body:
        if isinstance(stmt, ast.If) and is_type_checking(stmt.test):
            for node in stmt.body:
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


def all_entries(tree: ast.Module) -> list[tuple[str, int]]:
    """The strings of ``__all__ = [...]`` (and ``+=``) at module level, with their lines."""
    entries = []
    for stmt in tree.body:
        targets = (
            stmt.targets
            if isinstance(stmt, ast.Assign)
            else [stmt.target]
            if isinstance(stmt, (ast.AnnAssign, ast.AugAssign))
            else []
        )
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets) and stmt.value:
            for node in ast.walk(stmt.value):
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    entries.append((node.value, node.lineno))
    return entries


def find_cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            v, children = work[-1]
            for w in children:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    component = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        component.append(w)
                        if w == v:
                            break
                    if len(component) > 1:
                        components.append(sorted(component))
    return components


def one_cycle(graph: Mapping[str, set[str]], component: list[str]) -> list[str]:
    """A shortest cycle through the component's first module, as a closed path."""
    inside = set(component)
    start = component[0]
    previous: dict[str, str] = {}
    frontier = [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(graph[v] & inside):
                if w == start:
                    path = [v]
                    while path[-1] != start:
                        path.append(previous[path[-1]])
                    return [*reversed(path), start]
                if w not in previous:
                    previous[w] = v
                    nxt.append(w)
        frontier = nxt
    raise AssertionError("a strongly connected component always has a cycle")


def foreign_private_attributes(mod: Module) -> Iterator[str]:
    """``obj._name`` (or ``getattr(obj, "_name")``) where ``obj`` is not ``self``/``cls``
    and ``mod`` does not define ``_name``."""
    own = defined_names(mod.tree)
    in_line_order = sorted(
        ast.walk(mod.tree), key=lambda n: (getattr(n, "lineno", 0), getattr(n, "col_offset", 0))
    )
    for node in in_line_order:
        if isinstance(node, ast.Attribute):
            obj, name = node.value, node.attr
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ATTRIBUTE_BUILTINS
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
        ):
            obj, name = node.args[0], node.args[1].value
        else:
            continue
        if not is_private(name) or name in own or name in NAMEDTUPLE_API:
            continue
        if isinstance(obj, ast.Name) and obj.id in ("self", "cls"):
            continue
        yield (
            f"{mod.path}:{node.lineno}: reaches the private name {name} of "
            f"{ast.unparse(obj)}, which {mod.path} does not define"
        )


def check_package(files: Mapping[str, str]) -> list[str]:
    """Every broken rule, one message each, starting ``path:line:``."""
    modules = parse_modules(files)
    top = {m.split(".")[0] for m in modules}
    problems: list[str] = []
    graph: dict[str, set[str]] = {m: set() for m, mod in modules.items() if not mod.is_init}
    first_line: dict[tuple[str, str], int] = {}
    for mod in modules.values():
        for base, names, line in runtime_imports(mod):
            if base.split(".")[0] not in top:
                continue
            for name in names or [None]:
                submodule = f"{base}.{name}" if name else None
                target = submodule if submodule in modules else base
                if name and target == base and base != mod.name and is_private(name):
                    problems.append(
                        f"{mod.path}:{line}: imports the private name {name} from {base}"
                    )
                if not mod.is_init and target in graph and target != mod.name:
                    graph[mod.name].add(target)
                    first_line.setdefault((mod.name, target), line)
    for component in find_cycles(graph):
        cycle = one_cycle(graph, component)
        steps = "; ".join(
            f"{modules[a].path}:{first_line[a, b]} imports {b}"
            for a, b in itertools.pairwise(cycle)
        )
        problems.append(
            f"{modules[cycle[0]].path}:{first_line[cycle[0], cycle[1]]}: import cycle "
            f"among {', '.join(component)}: {steps}"
        )
    for mod in modules.values():
        problems.extend(foreign_private_attributes(mod))
        defined, imported = module_level_bindings(mod.tree)
        if mod.is_init and "__getattr__" in defined:  # a lazy facade: names load on first use
            imported = imported | type_checking_imports(mod.tree)
        for name, line in all_entries(mod.tree):
            if name in defined or (mod.is_init and name in imported):
                continue
            why = "imports it from elsewhere" if name in imported else "does not define it"
            problems.append(f"{mod.path}:{line}: __all__ lists {name}, but the module {why}")
    return problems


# ----------------------------------------------------------------------------- self-tests
def package(**modules: str) -> dict[str, str]:
    """A synthetic package ``pkg``: ``init`` is its ``__init__.py``."""
    return {
        f"pkg/{'__init__' if name == 'init' else name}.py": textwrap.dedent(source)
        for name, source in modules.items()
    }


def test_clean_package_has_no_problems():
    files = package(
        init="from .b import g\nfrom .a import f\n__all__ = ['f', 'g']\n",
        a="__all__ = ['f']\ndef f():\n    return 1\n",
        b="""
            from typing import NamedTuple
            from .a import f
            __all__ = ['g', 'Point']
            class Point(NamedTuple):
                x: int
            class G:
                def __init__(self):
                    self._cache = {}
                def _own(self, other):
                    return other._cache, self._own, len.__name__
            def g(p):
                return f() + p._replace(x=1).x + getattr(p, '_cache', 0)
        """,
    )
    assert check_package(files) == []


def test_a_cycle_is_found_even_through_a_function_level_import():
    files = package(
        init="from .a import f\n",
        a="from .b import g\ndef f():\n    return g()\n",
        b="def g():\n    from .a import f  # lazy, still a cycle\n    return f\n",
    )
    problems = check_package(files)
    assert len(problems) == 1
    assert problems[0].startswith("pkg/a.py:1: import cycle among pkg.a, pkg.b")
    assert "pkg/b.py:2 imports pkg.a" in problems[0]


def test_a_longer_cycle_and_absolute_imports():
    files = package(
        a="import pkg.b\n",
        b="from pkg import c\n",
        c="from . import a\n",
        d="from . import a\n",  # depends on the cycle, is not in it
    )
    (problem,) = check_package(files)
    assert "pkg.a, pkg.b, pkg.c:" in problem
    assert "pkg/a.py:1 imports pkg.b; pkg/b.py:1 imports pkg.c; pkg/c.py:1 imports pkg.a" in problem


def test_type_checking_imports_do_not_count_but_their_else_does():
    files = package(
        a="from .b import g\n",
        b="""
            from typing import TYPE_CHECKING
            import typing
            if TYPE_CHECKING:
                from .a import A
            if typing.TYPE_CHECKING:
                from . import a
            def g(x: "A"):
                return x
        """,
    )
    assert check_package(files) == []
    files["pkg/b.py"] += "if TYPE_CHECKING:\n    pass\nelse:\n    from .a import A\n"
    (problem,) = check_package(files)
    assert "import cycle among pkg.a, pkg.b" in problem


def test_the_facade_is_not_a_node():
    files = package(
        init="from .a import f\nfrom .b import g\n",
        a="def f():\n    from . import g\n    return g\n",
        b="from .a import f\ndef g():\n    return f\n",
    )
    assert check_package(files) == []


def test_importing_a_private_name_is_flagged_with_file_line_and_name():
    files = package(
        a="def _helper():\n    pass\n__version__ = '1'\n",
        b="from .a import __version__\n\n\ndef g():\n    from .a import _helper\n    return _helper\n",
    )
    assert check_package(files) == ["pkg/b.py:5: imports the private name _helper from pkg.a"]


def test_a_private_attribute_defined_only_in_another_module_is_flagged():
    files = package(
        a="""
            class Model:
                def _cpts(self):
                    return self._table
                def __init__(self):
                    self._table = 1
        """,
        b="""
            from . import a
            def use(model, clf):
                model._cpts()
                clf.helper._check_params()
                return a._secret, getattr(model, "_table"), model.__class__
        """,
    )
    problems = check_package(files)
    assert problems == [
        "pkg/b.py:4: reaches the private name _cpts of model, which pkg/b.py does not define",
        "pkg/b.py:5: reaches the private name _check_params of clf.helper, which pkg/b.py does not define",
        "pkg/b.py:6: reaches the private name _secret of a, which pkg/b.py does not define",
        "pkg/b.py:6: reaches the private name _table of model, which pkg/b.py does not define",
    ]


def test_self_and_cls_and_own_names_are_fine_but_assigning_on_a_foreign_object_is_not():
    files = package(
        a="""
            class A:
                @classmethod
                def make(cls):
                    return cls._build()
                def go(self):
                    return self._inherited_from_elsewhere
            def poke(obj):
                obj._mark = True
        """,
    )
    assert check_package(files) == [
        "pkg/a.py:9: reaches the private name _mark of obj, which pkg/a.py does not define"
    ]


def test_all_lists_only_names_defined_in_the_module():
    files = package(
        init="from .a import f\n__all__ = ['f', 'missing']\n",
        a="""
            from typing import TYPE_CHECKING
            from .b import g
            if TYPE_CHECKING:
                from .b import H
            __all__ = ['f', 'g', 'H', 'CONST', 'Alias', 'maybe']
            CONST = 1
            Alias = int
            try:
                maybe = 1
            except ImportError:
                maybe = None
            def f():
                pass
        """,
        b="def g():\n    pass\nclass H:\n    pass\n",
    )
    assert check_package(files) == [
        "pkg/__init__.py:2: __all__ lists missing, but the module does not define it",
        "pkg/a.py:6: __all__ lists g, but the module imports it from elsewhere",
        "pkg/a.py:6: __all__ lists H, but the module does not define it",
    ]


def test_a_lazy_facade_may_list_its_type_checking_imports():
    lazy = """
        from typing import TYPE_CHECKING
        if TYPE_CHECKING:
            from .a import f
        __all__ = ['f']
        def __getattr__(name):
            pass
    """
    assert check_package(package(init=lazy, a="def f():\n    pass\n")) == []
    # without a module __getattr__ nothing would load f: still an error
    eager = lazy.replace("def __getattr__(name):\n            pass\n", "")
    assert check_package(package(init=eager, a="def f():\n    pass\n")) == [
        "pkg/__init__.py:5: __all__ lists f, but the module does not define it"
    ]


def test_cycle_finder_on_plain_graphs():
    graph = {
        "a": {"b"},
        "b": {"c"},
        "c": {"a", "d"},
        "d": set(),
        "e": {"e"},
        "f": {"g"},
        "g": {"f"},
    }
    assert sorted(find_cycles(graph)) == [["a", "b", "c"], ["f", "g"]]
    assert one_cycle(graph, ["a", "b", "c"]) == ["a", "b", "c", "a"]
    chain = {str(i): {str(i + 1)} for i in range(5000)} | {"5000": {"0"}}  # deep: no recursion
    assert len(find_cycles(chain)[0]) == 5001


# ----------------------------------------------------------------------------- the package
def test_treelearn_follows_the_layering_rules():
    problems = check_package(read_package(PACKAGE_DIR))
    assert not problems, "\n" + "\n".join(problems)


def test_the_checker_reads_the_real_package():
    """So that the test above cannot pass by reading nothing."""
    modules = parse_modules(read_package(PACKAGE_DIR))
    assert {
        "treelearn",
        "treelearn.structure._trees",
        "treelearn.learners._chow_liu",
        "treelearn.models._tree",
    } <= set(modules)
    imports = {base for base, _, _ in runtime_imports(modules["treelearn.learners._chow_liu"])}
    assert "treelearn.structure._trees" in imports


# ---------------------------------------------------------------- ARCHITECTURE.md stays true
def architecture_rows(text: str) -> list[tuple[str, str]]:
    """``(layer, module)`` of ARCHITECTURE.md's layer table, top to bottom
    (``| layer | `folder/_x.py` | ... |``; an empty layer cell continues the one above)."""
    start = text.index("| layer | module | owns |")
    rows = text[start:].split("\n\n", 1)[0].splitlines()[2:]
    out, layer = [], ""
    for row in rows:
        cells = row.split("|")
        layer = cells[1].strip().strip("`").rstrip("/") or layer
        out.append((layer, cells[2].strip().strip("`").removesuffix(".py").replace("/", ".")))
    return out


def layer_of(module: str) -> str:
    """The layer is the folder: ``stats._counts`` -> ``stats``; a top-level module is its own
    layer, named without its underscore (``_io`` -> ``io``)."""
    head, _, rest = module.partition(".")
    return head if rest else head.lstrip("_")


def upward_imports(modules: Mapping[str, Module], order: Sequence[str]) -> list[str]:
    """Imports of a module of a layer listed later in ``order`` (layers, top to bottom)."""
    rank = {layer: i for i, layer in enumerate(order)}
    upward = []
    for name, module in modules.items():
        mine = layer_of(name)
        for base, names, line in runtime_imports(module):
            for target in [f"{base}.{n}" for n in names] + [base]:
                if not target.startswith("treelearn."):  # e.g. the standard library's io
                    continue
                short = target.removeprefix("treelearn.")
                if short not in modules:
                    continue
                theirs = layer_of(short)
                if theirs != mine and rank[theirs] > rank[mine]:
                    upward.append(
                        f"{module.path}:{line}: imports {short} (layer {theirs}, listed "
                        f"below {mine})"
                    )
    return sorted(set(upward))


def test_architecture_table_lists_every_module_in_its_folder_and_layers_import_downwards():
    root = os.path.dirname(PACKAGE_DIR)
    with open(os.path.join(root, "ARCHITECTURE.md"), encoding="utf-8") as f:
        rows = architecture_rows(f.read())
    modules = {
        name.removeprefix("treelearn."): m
        for name, m in parse_modules(read_package(PACKAGE_DIR)).items()
        if not m.is_init and name != "treelearn.__main__"
    }
    listed = [module for _, module in rows]
    assert sorted(listed) == sorted(modules), "ARCHITECTURE.md must list every module once"
    wrong = [(layer, module) for layer, module in rows if layer_of(module) != layer]
    assert not wrong, f"a module's layer is its folder: {wrong}"
    order = list(dict.fromkeys(layer for layer, _ in rows))
    assert len(order) == len({layer_of(m) for m in modules}) >= 10
    upward = upward_imports(modules, order)
    assert not upward, "\n" + "\n".join(upward)


def test_architecture_order_check_can_fail():
    text = (
        "| layer | module | owns |\n|---|---|---|\n| a | `a/_x.py` | . |\n| | `a/_y.py` | . |\n"
        "| b | `b/_z.py` | . |\n\n"
    )
    assert architecture_rows(text) == [("a", "a._x"), ("a", "a._y"), ("b", "b._z")]
    assert layer_of("stats._counts") == "stats" and layer_of("_io") == "io"
    real = {
        n.removeprefix("treelearn."): m
        for n, m in parse_modules(read_package(PACKAGE_DIR)).items()
        if not m.is_init and n != "treelearn.__main__"
    }
    layers = list(dict.fromkeys(layer_of(m) for m in real))
    # the front end listed first: every one of its imports of the library goes "up"
    found = upward_imports(real, ["cli", *[layer for layer in layers if layer != "cli"]])
    assert any(line.startswith("treelearn/cli/_main.py") for line in found)
