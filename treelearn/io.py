"""Reading data and models, writing models: treelearn's JSON files (``load``, ``save``),
BIF, XMLBIF, UAI, pgmpy and pyAgrum; reading tables (``read_data``) and preparing their
columns (dates, identifiers, bins).

>>> import treelearn.io as tio
>>> tio.load is __import__("treelearn").load
True
"""

from typing import TYPE_CHECKING

from ._base.lazy import lazy_names

if TYPE_CHECKING:  # the names for type checkers and IDEs; at run time each loads on first use
    from ._io import from_pgmpy, from_pyagrum, load, read_bif, read_uai, read_xmlbif, save
    from .encoding._discretizer import Discretizer
    from .encoding._table import discretize
    from .export._pgmpy import to_pgmpy, write_bif
    from .export._pyagrum import to_pyagrum
    from .export._uai import write_uai
    from .export._xmlbif import write_xmlbif
    from .sources._reading import date_columns, identifier_columns, read_data

#: each public name of this role and the module (below ``treelearn``) that defines it: the one
#: list of them (``treelearn``'s flat names are assembled from these tables)
NAMES = {
    "from_pgmpy": "_io",
    "from_pyagrum": "_io",
    "load": "_io",
    "read_bif": "_io",
    "read_uai": "_io",
    "read_xmlbif": "_io",
    "save": "_io",
    "Discretizer": "encoding._discretizer",
    "discretize": "encoding._table",
    "to_pgmpy": "export._pgmpy",
    "write_bif": "export._pgmpy",
    "to_pyagrum": "export._pyagrum",
    "write_uai": "export._uai",
    "write_xmlbif": "export._xmlbif",
    "date_columns": "sources._reading",
    "identifier_columns": "sources._reading",
    "read_data": "sources._reading",
}

__getattr__, __dir__ = lazy_names(__name__, NAMES)
__all__ = sorted(NAMES)
