"""Every public name's docstring is in numpydoc form: Parameters (where it takes any),
Returns (functions that return something) and an Examples section (issue 42 item 4); every
estimator has See Also, every algorithm References citing its paper; no docstring points
at a private module.

The sections are found by their numpydoc headings (a title line, then a line of dashes);
the examples themselves run as doctests in the main job (``--doctest-modules``).
"""

from __future__ import annotations

import inspect
import re

import pytest

import treelearn as tl

SECTION = re.compile(r"^([A-Z][A-Za-z ]+)\n-{3,}\s*$", flags=re.M)

#: the paper each algorithm's References section cites (a surname of its first author):
#: every estimator that implements a published algorithm, and the functions and models of
#: the algorithms they are named after
REFERENCES: dict[str, str] = {
    "AODE": "Webb",
    "AnDE": "Webb",
    "AWNB": "Hall",
    "BSEJ": "Pazzani",
    "BaggedTrees": "Breiman",
    "BayesianTAN": "Cerquides",
    "BayesianTrees": "Meila",
    "CLGTree": "Lauritzen",
    "CLGTreeModel": "Lauritzen",
    "ChowLiuMultinet": "Friedman",
    "ChowLiuTree": "Chow",
    "CopulaTAN": "Elidan",
    "CopulaTree": "Elidan",
    "CopulaTreeModel": "Elidan",
    "CutsetModel": "Rahman",
    "CutsetNetwork": "Rahman",
    "Discretizer": "Fayyad",
    "ETAN": "de Campos",
    "Explanation": "Lundberg",
    "FSSJ": "Pazzani",
    "GaussianClassifier": "Duda",
    "GaussianTAN": "Pérez",
    "GaussianTree": "Chow",
    "GaussianTreeModel": "Chow",
    "HiddenMarkovModel": "Rabiner",
    "HiddenTree": "Choi",
    "KDB": "Sahami",
    "KernelForest": "Liu",
    "KernelForestModel": "Liu",
    "KernelTAN": "Pérez",
    "MANB": "Dash",
    "MixedNaiveBayes": "John",
    "MixedTAN": "Pérez",
    "NaiveBayes": "Domingos",
    "SKDB": "Martínez",
    "TAN": "Friedman",
    "TANHillClimb": "Keogh",
    "TANSuperParent": "Keogh",
    "TextNaiveBayes": "McCallum",
    "TreeMixture": "Meila",
    "TreePosterior": "Meila",
    "WeightedNaiveBayes": "Zaidi",
    "chow_liu": "Chow",
    "clg_tree": "Lauritzen",
    "copula_chow_liu": "Elidan",
    "gaussian_chow_liu": "Chow",
    "kernel_forest": "Liu",
    "tan_structure": "Friedman",
    "tree_posterior": "Meila",
}

#: the estimators (public classes with ``fit``): each names its neighbours in See Also
ESTIMATORS = sorted(
    name
    for name in tl.__all__
    if inspect.isclass(getattr(tl, name)) and hasattr(getattr(tl, name), "fit")
)


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
    assert not missing, f"tl.{name}'s docstring lacks {sorted(missing)}"


@pytest.mark.parametrize("name", tl.__all__)
def test_public_docstring_names_no_private_module(name):
    doc = inspect.getdoc(getattr(tl, name)) or ""
    private = re.findall(r"treelearn(?:\.\w+)*\._[a-z]\w*", doc)
    assert not private, f"tl.{name}'s docstring points at private modules: {private}"


@pytest.mark.parametrize("name", [n for n in tl.__all__ if inspect.isclass(getattr(tl, n))])
def test_public_members_name_no_private_module(name):
    """The methods and properties on a class's reference page point at public names too."""
    private = {}
    for attr, member in inspect.getmembers(getattr(tl, name)):
        if attr.startswith("_") or isinstance(member, (str, int, float, frozenset, tuple)):
            continue
        doc = inspect.getdoc(member) or ""
        found = re.findall(r"treelearn(?:\.\w+)*\._[a-z]\w*", doc)
        if found:
            private[attr] = found
    assert not private, f"tl.{name}'s members point at private modules: {private}"


#: an entry of a Parameters or Attributes section: names (one or several, comma-separated),
#: then optionally `` : `` and the type; anything else at the entries' indent (a paragraph of
#: prose) is read by numpydoc as more parameters, and the reference shows each of its lines
#: as a parameter's name
ENTRY = re.compile(r"^\*{0,2}\w+(?:, \*{0,2}\w+)*(?: : .*)?$")


@pytest.mark.parametrize("name", tl.__all__)
def test_parameters_and_attributes_hold_only_entries(name):
    found = sections(inspect.getdoc(getattr(tl, name)) or "")
    for section in ("Parameters", "Attributes"):
        entries = [line for line in found.get(section, "").splitlines() if line[:1].strip()]
        stray = [line for line in entries if not ENTRY.match(line)]
        assert not stray, f"tl.{name}'s {section} holds prose at the entries' indent: {stray[:2]}"


DEFAULT = re.compile(r"^(\w+) : .*\bdefault=(.+)$", flags=re.M)


@pytest.mark.parametrize("name", tl.__all__)
def test_documented_defaults_are_the_signatures(name):
    """``alpha : float, default=1.0`` says what the signature says."""
    import ast

    obj = getattr(tl, name)
    doc = sections(inspect.getdoc(obj) or "").get("Parameters", "")
    target = obj.__init__ if inspect.isclass(obj) else obj
    parameters = inspect.signature(target).parameters
    for parameter, written in DEFAULT.findall(doc):
        assert parameter in parameters, f"tl.{name} documents {parameter}, not in its signature"
        value = ast.literal_eval(written.strip())
        actual = parameters[parameter].default
        assert actual == value and type(actual) is type(value), (
            f"tl.{name}'s docstring says {parameter} defaults to {written}, the signature "
            f"to {actual!r}"
        )


@pytest.mark.parametrize("name", ESTIMATORS)
def test_estimator_docstring_has_see_also(name):
    found = sections(inspect.getdoc(getattr(tl, name)) or "")
    see_also = found.get("See Also", "")
    assert see_also, f"tl.{name}'s docstring has no See Also section"
    named = re.findall(r"^(\w+(?:, \w+)*) :", see_also, flags=re.M)
    names = [n for line in named for n in line.split(", ")]
    assert names, f"tl.{name}'s See Also names nothing in numpydoc form ('Name : why')"
    unknown = [n for n in names if n not in tl.__all__ and not hasattr(tl.TreeModel, n)]
    assert not unknown, f"tl.{name}'s See Also names {unknown}, which are not public names"


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_algorithm_docstring_cites_its_paper(name):
    found = sections(inspect.getdoc(getattr(tl, name)) or "")
    references = found.get("References", "")
    assert references.startswith(".. [1] "), f"tl.{name} has no numbered References section"
    assert REFERENCES[name] in references, f"tl.{name}'s References do not cite {REFERENCES[name]}"
    assert re.search(r"\((?:19|20)\d\d\)", references), f"tl.{name}'s reference has no year"


def test_every_estimator_is_judged_for_references():
    # an estimator either cites its paper or is one of these, which implement no one paper
    no_paper = {"AutoClassifier", "AutoDensity"}
    assert set(ESTIMATORS) - set(REFERENCES) == no_paper


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


#: the words a numpydoc type is written in (besides class names, which start with a capital
#: letter, dotted paths such as ``numpy.ndarray``, literals such as ``{"error", "drop"}``
#: or ``"scott"``, numbers, and ``default=...``); a lower-case word outside this list is
#: prose, which belongs in the description under the entry
TYPE_WORDS = frozenset(
    [
        "int",
        "float",
        "bool",
        "str",
        "bytes",
        "hashable",
        "object",
        "callable",
        "None",
        "optional",
        "array-like",
        "sequence",
        "sequences",
        "list",
        "tuple",
        "dict",
        "set",
        "frozenset",
        "iterable",
        "mapping",
        "of",
        "or",
        "and",
        "to",
        "pairs",
        "column",
        "columns",
        "names",
        "name",
        "fitted",
        "classifier",
        "estimator",
        "matrix",
        "dask",
        "graph",
        "networkx",
        "node",
        "positive",
        "non-negative",
        "path",
        "stream",
    ]
)
LITERAL = re.compile(r'shape \([^)]*\)|\{[^}]*\}|"[^"]*"|\'[^\']*\'|:\w+:`[^`]+`|-?\d[\d.e+-]*')


def untyped_words(entry_type: str) -> list[str]:
    """The words of an entry's type (the text after ``name : ``) that are not type words.

    >>> untyped_words('{"error", "drop"}, default="error"')
    []
    >>> untyped_words("the pseudocount above")
    ['the', 'pseudocount', 'above']
    """
    written = re.split(r",?\s*\bdefault=", entry_type)[0]
    words = re.split(r"[\s,()\[\]]+", LITERAL.sub(" ", written))
    return [
        w
        for w in words
        if w and w not in TYPE_WORDS and "." not in w and not w[:1].isupper() and w != "*"
    ]


def parameter_entries(name: str) -> list[tuple[str, str | None]]:
    """The (names, type) entries of a public name's Parameters section (type None: none)."""
    found = sections(inspect.getdoc(getattr(tl, name)) or "").get("Parameters", "")
    entries = []
    for line in found.splitlines():
        match = re.match(r"^(\*{0,2}\w+(?:, \*{0,2}\w+)*)(?: : (.*))?$", line)
        if line[:1].strip() and match:
            entries.append((match.group(1), match.group(2)))
    return entries


@pytest.mark.parametrize("name", tl.__all__)
def test_every_parameter_entry_has_a_type(name):
    """``alpha : float, default=1.0``: each entry names one parameter and gives its type."""
    for names, entry_type in parameter_entries(name):
        assert entry_type, f"tl.{name}'s Parameters entry {names!r} has no type"
        prose = untyped_words(entry_type)
        assert not prose, f"tl.{name}'s {names} : {entry_type!r} is prose, not a type: {prose}"


def test_the_type_check_on_known_entries():
    assert untyped_words('"scott", "silverman" or float, default="scott"') == []
    assert untyped_words("int, numpy.random.Generator or None, default=None") == []
    assert untyped_words(":class:`~treelearn.TreeModel` or fitted classifier") == []
    assert untyped_words("as in :class:`~treelearn.NaiveBayes`.") == ["as", "in"]
    assert untyped_words("seconds; no candidate starts")[0] == "seconds;"


#: the public names whose signature the reference documents (the exception family's
#: ``message`` is its one argument, exempt as in ``missing_sections``)
DOCUMENTED_SIGNATURES = [
    name
    for name in tl.__all__
    if takes_parameters(getattr(tl, name))
    and not (inspect.isclass(getattr(tl, name)) and issubclass(getattr(tl, name), BaseException))
]


@pytest.mark.parametrize("name", DOCUMENTED_SIGNATURES)
def test_every_parameter_is_documented_with_its_default(name):
    """Each parameter of the signature has an entry, and one with a default says it."""
    obj = getattr(tl, name)
    target = obj.__init__ if inspect.isclass(obj) else obj
    documented = {
        n.strip("*"): entry_type or ""
        for names, entry_type in parameter_entries(name)
        for n in names.split(", ")
    }
    for parameter in inspect.signature(target).parameters.values():
        if parameter.name == "self" or parameter.kind in (
            parameter.VAR_POSITIONAL,
            parameter.VAR_KEYWORD,
        ):
            continue
        assert parameter.name in documented, f"tl.{name} does not document {parameter.name}"
        if parameter.default is not parameter.empty:
            assert "default=" in documented[parameter.name], (
                f"tl.{name}'s {parameter.name} entry does not say its default "
                f"(default={parameter.default!r})"
            )
