"""Sphinx configuration of treelearn's documentation site.

Build it (the README's command; ``.ci/run`` runs the same with warnings as errors)::

    .venv/bin/pip install -q -e ".[docs]"
    .venv/bin/python -m sphinx -W --keep-going -n -b html docs docs/_build/html

Offline by design: cross-references into Python, pandas and scikit-learn are resolved
from inventories stored in ``docs/_inventories/`` (no download at build time), the
gallery runs ``examples/`` on the bundled ``datasets/`` and data shipped in wheels.
"""

from __future__ import annotations

import os
import sys
import weakref

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)  # docs/_ext

import treelearn  # noqa: E402

project = "treelearn"
author = "the treelearn authors"
copyright = "the treelearn authors, MIT licence"
version = release = treelearn.__version__  # the one version (treelearn/__init__.py)

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
    "_ext.api_pages",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "_inventories", "_explorer", "auto_examples/*.ipynb", "**/*.py.md5"]
templates_path = ["_templates"]
html_theme = "furo"
html_title = f"treelearn {release}"
html_static_path: list[str] = []
# the gallery's explorer page writes its page here; copied to the site's root
os.makedirs(os.path.join(HERE, "_explorer"), exist_ok=True)
html_extra_path = ["_explorer"]
myst_enable_extensions = ["colon_fence", "dollarmath"]
myst_heading_anchors = 3

# nitpicky (-n): every cross-reference must resolve. Signatures are shown without their
# type hints (the numpydoc Parameters section states each type in words), so the check
# covers the references the pages and docstrings write on purpose.
nitpicky = True
suppress_warnings = ["config.cache"]  # the gallery's scraper is a function: no pickled config
autodoc_typehints = "none"
autodoc_default_options = {"members": False}
autosummary_generate = True
autosummary_imported_members = True
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
# names a docstring writes bare (an attribute or constant of the class or module it is in,
# which has no page of its own) or objects of libraries whose inventory is not stored
nitpick_ignore_regex = [
    (r"py:(data|attr|meth|func|class)", r"[A-Za-z_][A-Za-z0-9_]*"),
    (r"py:(func|class|mod|meth)", r"(networkx|pgmpy|numpy|scipy|pyagrum|dask)(\..*)?"),
]
numpydoc_validation_checks: set[str] = set()  # tests/test_docstrings.py checks the sections

intersphinx_mapping = {
    "python": ("https://docs.python.org/3", os.path.join(HERE, "_inventories", "python.inv")),
    "pandas": (
        "https://pandas.pydata.org/pandas-docs/stable",
        os.path.join(HERE, "_inventories", "pandas.inv"),
    ),
    "sklearn": (
        "https://scikit-learn.org/stable",
        os.path.join(HERE, "_inventories", "sklearn.inv"),
    ),
}
intersphinx_timeout = 1
intersphinx_disabled_reftypes = ["*"]  # only explicit `python:...`-style or resolvable refs


# ---- the gallery -------------------------------------------------------------------
# treelearn's draw() returns a Figure that pyplot does not hold (so notebooks and loops do
# not leak figures); sphinx-gallery's matplotlib scraper only sees pyplot's figures. This
# scraper also saves every Figure created while a block ran, each once.
_created: weakref.WeakSet = weakref.WeakSet()
_saved: weakref.WeakSet = weakref.WeakSet()


def _track_figures() -> None:
    from matplotlib.figure import Figure

    if getattr(Figure.__init__, "_treelearn_tracked", False):
        return
    original = Figure.__init__

    def init(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        original(self, *args, **kwargs)
        _created.add(self)

    init._treelearn_tracked = True  # type: ignore[attr-defined]
    Figure.__init__ = init  # type: ignore[method-assign]


def figure_scraper(block, block_vars, gallery_conf):  # type: ignore[no-untyped-def]
    import matplotlib.pyplot as plt
    from sphinx_gallery.scrapers import figure_rst

    figures = [plt.figure(n) for n in plt.get_fignums()]
    figures += [f for f in list(_created) if f not in figures]
    paths = []
    image_names = block_vars["image_path_iterator"]
    for fig in figures:
        if fig in _saved:
            continue
        path = next(image_names)
        fig.savefig(path, dpi=100, bbox_inches="tight")
        _saved.add(fig)
        paths.append(path)
    plt.close("all")
    return figure_rst(paths, gallery_conf["src_dir"])


def reset_figures(gallery_conf, fname):  # type: ignore[no-untyped-def]
    import matplotlib

    matplotlib.use("Agg")
    _track_figures()
    _created.clear()
    _saved.clear()


sphinx_gallery_conf = {
    "examples_dirs": [os.path.join(ROOT, "examples")],
    "gallery_dirs": ["auto_examples"],
    "filename_pattern": r"\.py$",  # every script runs at build time
    "ignore_pattern": r"__init__\.py",
    "image_scrapers": (figure_scraper,),
    "reset_modules": (reset_figures,),
    "reset_argv": lambda gallery_conf, script_vars: [],
    "download_all_examples": False,
    "remove_config_comments": True,
    "abort_on_example_error": True,
    "within_subsection_order": "FileNameSortKey",
    "show_memory": False,
    "write_computation_times": False,
    "plot_gallery": "True",
}
