"""Every public name's docstring is in numpydoc form: Parameters (where it takes any),
Returns (functions that return something) and an Examples section (issue 42 item 4).

The sections are found by their numpydoc headings (a title line, then a line of dashes);
the examples themselves run as doctests in the main job (``--doctest-modules``).
"""

from __future__ import annotations

import inspect
import re

import pytest

import treelearn as tl

SECTION = re.compile(r"^([A-Z][A-Za-z ]+)\n-{3,}\s*$", flags=re.M)

#: names whose docstring still lacks a required section, with the sections it lacks. This
#: list only shrinks: a name that gains its sections must be taken off it (the test says so).
NOT_YET: dict[str, set[str]] = {}

#: names whose docstring still points at a private module (the reference links such a name
#: nowhere); also only shrinks
NAMES_PRIVATE_MODULES: set[str] = {
    "AODE",
    "AWNB",
    "AnDE",
    "BayesianTAN",
    "BayesianTrees",
    "CLGTree",
    "ChowLiuMultinet",
    "ChowLiuTree",
    "CopulaTree",
    "CutsetNetwork",
    "ETAN",
    "GaussianTree",
    "HiddenTree",
    "KDB",
    "KernelForest",
    "MANB",
    "MixedNaiveBayes",
    "NaiveBayes",
    "SKDB",
    "TAN",
    "TextNaiveBayes",
    "TreeMixture",
    "TreeModel",
    "WeightedNaiveBayes",
    "chow_liu",
}


def sections(doc: str) -> dict[str, str]:
    found = {}
    heads = list(SECTION.finditer(doc))
    for i, head in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(doc)
        found[head.group(1).strip()] = doc[head.end() : end].strip()
    return found


def takes_parameters(obj) -> bool:
    target = obj.__init__ if inspect.isclass(obj) else obj
    try:
        signature = inspect.signature(target)
    except (TypeError, ValueError):
        return False
    names = [p for p in signature.parameters if p not in ("self", "args", "kwargs")]
    return bool(names)


def returns_something(obj) -> bool:
    if inspect.isclass(obj) or not callable(obj):
        return False
    annotation = inspect.signature(obj).return_annotation
    return annotation not in (None, "None", inspect.Signature.empty)


def missing_sections(name: str) -> set[str]:
    obj = getattr(tl, name)
    doc = inspect.getdoc(obj) or ""
    found = sections(doc)
    missing = set()
    if issubclass(obj, BaseException) if inspect.isclass(obj) else False:
        return {"Examples"} - set(found) if "Examples" not in found and ">>>" not in doc else set()
    if takes_parameters(obj) and not found.get("Parameters"):
        missing.add("Parameters")
    if returns_something(obj) and not (found.get("Returns") or found.get("Yields")):
        missing.add("Returns")
    if not found.get("Examples"):
        missing.add("Examples")
    return missing


@pytest.mark.parametrize("name", tl.__all__)
def test_public_docstring_has_its_sections(name):
    missing = missing_sections(name)
    expected = NOT_YET.get(name, set())
    assert missing <= expected, f"tl.{name}'s docstring lacks {sorted(missing - expected)}"
    assert missing == expected, (
        f"tl.{name} now has {sorted(expected - missing)}: take it off NOT_YET in this file"
    )


@pytest.mark.parametrize("name", tl.__all__)
def test_public_docstring_names_no_private_module(name):
    doc = inspect.getdoc(getattr(tl, name)) or ""
    private = re.findall(r"treelearn(?:\.\w+)*\._[a-z]\w*", doc)
    if name in NAMES_PRIVATE_MODULES:
        assert private, f"tl.{name} names no private module now: take it off NAMES_PRIVATE_MODULES"
    else:
        assert not private, f"tl.{name}'s docstring points at private modules: {private}"


def test_the_section_finder_on_a_known_docstring():
    doc = (
        "Summary.\n\nParameters\n----------\nx : int\n    A number.\n\nExamples\n--------\n>>> 1\n1"
    )
    assert sections(doc) == {"Parameters": "x : int\n    A number.", "Examples": ">>> 1\n1"}


#: public names pytest's ``--doctest-modules`` never runs: the exception family says
#: ``__module__ = "treelearn"`` (so tracebacks print ``treelearn.UnseenStateError``), and
#: doctest skips objects whose ``__module__`` is not the module being collected
NOT_COLLECTED = sorted(
    name for name in tl.__all__ if getattr(getattr(tl, name), "__module__", "") == "treelearn"
)


def test_uncollected_names_are_the_exception_family():
    assert "TreelearnError" in NOT_COLLECTED and "NumericColumnWarning" in NOT_COLLECTED
    assert all(issubclass(getattr(tl, name), Warning | tl.TreelearnError) for name in NOT_COLLECTED)


@pytest.mark.parametrize("name", NOT_COLLECTED)
def test_examples_of_uncollected_names_run(name):
    import doctest

    from treelearn._base import errors

    finder = doctest.DocTestFinder(exclude_empty=True)
    globs = dict(vars(errors))  # the globals the examples had when written in their module
    tests = [
        t for t in finder.find(getattr(tl, name), name, module=False, globs=globs) if t.examples
    ]
    assert tests, f"tl.{name} has no example to run"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in tests:
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of tl.{name}'s examples failed (printed above)"
