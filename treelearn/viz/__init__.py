"""Pictures of models: the interactive HTML explorer (``to_html``) and explanation plots;
every model's ``draw``, ``to_dot`` and ``to_mermaid`` are written here too (matplotlib with
no pyplot state, Graphviz DOT, Mermaid).

>>> import treelearn.viz as tv
>>> sorted(tv.__all__)
['plot_explanation', 'to_html']
"""

from typing import TYPE_CHECKING

from .._base.lazy import lazy_names

if TYPE_CHECKING:  # the names for type checkers and IDEs; at run time each loads on first use
    from ._explain_plots import plot_explanation
    from ._explorer import to_html

#: each public name of this role and the module (below ``treelearn``) that defines it: the one
#: list of them (``treelearn``'s flat names are assembled from these tables)
NAMES = {
    "plot_explanation": "viz._explain_plots",
    "to_html": "viz._explorer",
}

__getattr__, __dir__ = lazy_names(__name__, NAMES)
__all__ = sorted(NAMES)
