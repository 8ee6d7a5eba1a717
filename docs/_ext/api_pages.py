"""The API reference's pages, written from the role modules' ``NAMES`` tables.

Every public name is listed once, in the table of the role module that hands it out
(:mod:`treelearn.classifiers`, ``.density``, ``.structure``, ``.io``, ``.explain``,
``.viz``); the exception family is :mod:`treelearn`'s own. A page per role is written
before autosummary reads the sources, so a name another change adds to a table appears in
the reference without editing the docs.
"""

from __future__ import annotations

import os

import treelearn
from treelearn._base import errors

ROLE_TITLES = {
    "classifiers": "Classifiers",
    "density": "Density models and their learners",
    "structure": "Structure: graphs, trees and their stages",
    "io": "Saving, loading and exchange formats",
    "explain": "Explanations and information",
    "viz": "Pictures and the explorer",
}


def autosummary_page(title: str, intro: list[str], names: list[str]) -> str:
    """A reference page: its title, the lines introducing it, and a page per name."""
    lines = [title, "=" * len(title), "", *intro, ".. currentmodule:: treelearn", ""]
    lines += [".. autosummary::", "   :toctree: generated", "   :nosignatures:", ""]
    lines += [f"   {name}" for name in names]
    return "\n".join(lines) + "\n"


def role_page(role: str, names: list[str]) -> str:
    intro = [
        f".. automodule:: treelearn.{role}",
        "   :no-members:",
        "",
        f"Each name is also ``treelearn.<name>`` (``import treelearn as tl; tl.{names[0]}``).",
        "",
    ]
    return autosummary_page(f"``treelearn.{role}``: {ROLE_TITLES[role]}", intro, names)


def errors_page() -> str:
    intro = [
        "Every error treelearn raises on bad input is a :class:`treelearn.TreelearnError`",
        "(a :class:`ValueError`) naming the column, the value and the fix.",
        "",
    ]
    return autosummary_page("Errors and warnings", intro, sorted(errors.__all__))


def cli_page() -> str:
    from cli_synopsis import full_help

    title = "Command-line reference"
    lines = [
        title,
        "=" * len(title),
        "",
        "Each command's ``treelearn COMMAND --help``, written from the parser when the site",
        "is built (so it is the installed command's own text).",
        "",
    ]
    for name, text in full_help().items():
        heading = f"``treelearn {name}``"
        lines += [heading, "-" * len(heading), "", ".. code-block:: text", ""]
        lines += [f"   {line}".rstrip() for line in text.splitlines()]
        lines.append("")
    return "\n".join(lines) + "\n"


def write_if_changed(path: str, text: str) -> None:
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return  # an unchanged file keeps Sphinx's incremental build
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def write_pages(app, config) -> None:  # type: ignore[no-untyped-def]
    folder = os.path.join(app.srcdir, "api")
    os.makedirs(folder, exist_ok=True)
    pages = {
        role: role_page(role, sorted(module.NAMES)) for role, module in treelearn.ROLES.items()
    }
    pages |= {"errors": errors_page(), "cli": cli_page()}
    for name, text in pages.items():
        write_if_changed(os.path.join(folder, f"{name}.rst"), text)


# ---- references written against a defining module resolve to the public name -------------
# A docstring may name ``treelearn.models._tree.TreeModel.query``; the reference documents it
# as ``treelearn.TreeModel.query`` (the one page per public name), so the link goes there.
SKIPPED_MEMBERS = ("get_metadata_routing", "get_params", "set_params", "set_output")


def public_target(target: str) -> str | None:
    parts = target.split(".")
    if parts[0] != "treelearn":
        return None
    public = set(treelearn.__all__)
    for i, part in enumerate(parts[1:], start=1):
        if part in public:
            return ".".join(["treelearn", *parts[i:]])
    return None


def is_private(target: str) -> bool:
    return target.startswith("treelearn.") and any(
        part.startswith("_") and not part.startswith("__") for part in target.split(".")
    )


#: private targets that docstrings still name (each one is shown as text, without a link,
#: and listed here at build time: the docstrings should name a public object instead)
PRIVATE_TARGETS: set[str] = set()


def resolve_private(app, env, node, contnode):  # type: ignore[no-untyped-def]
    if node.get("refdomain") != "py":
        return None
    reftarget = node.get("reftarget", "")
    target = public_target(reftarget)
    if target is not None:
        domain = env.get_domain("py")
        found = domain.resolve_xref(
            env, node["refdoc"], app.builder, node["reftype"], target, node, contnode
        )
        if found is not None:
            return found
    if is_private(reftarget):
        PRIVATE_TARGETS.add(reftarget)
        return contnode  # the text as written, no link: a private object has no page
    return None


def report_private(app, exception) -> None:  # type: ignore[no-untyped-def]
    if exception is None and PRIVATE_TARGETS:
        path = os.path.join(app.outdir, "private_references.txt")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(sorted(PRIVATE_TARGETS)) + "\n")


def skip_member(app, what, name, obj, skip, options):  # type: ignore[no-untyped-def]
    # scikit-learn's metadata-routing helpers (set_fit_request, ...) and BaseEstimator's
    # parameter accessors are scikit-learn's to document
    if name in SKIPPED_MEMBERS or (name.startswith("set_") and name.endswith("_request")):
        return True
    return None


def setup_references(app) -> None:  # type: ignore[no-untyped-def]
    app.connect("missing-reference", resolve_private)
    app.connect("autodoc-skip-member", skip_member)
    app.connect("build-finished", report_private)


def setup(app):  # type: ignore[no-untyped-def]
    app.connect("config-inited", write_pages)  # before Sphinx lists the source files
    setup_references(app)
    return {"parallel_read_safe": True}
