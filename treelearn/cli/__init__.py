"""The ``treelearn`` command: parses arguments and prints."""

from ._main import main

__all__ = ["main"]
