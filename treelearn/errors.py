"""One exception family for bad input.

Every class subclasses :class:`TreelearnError`, itself a :class:`ValueError`,
so ``except ValueError`` keeps working for callers that do not care which.
Messages name the column, the offending value or count, and the fix.
"""

from __future__ import annotations

__all__ = [
    "ClassColumnError",
    "ClassLabelError",
    "ColumnNotFoundError",
    "CorruptModelFileError",
    "DuplicateColumnError",
    "EmptyDataError",
    "FeatureMismatchError",
    "InvalidModelError",
    "MissingValuesError",
    "ModelFileError",
    "ModelFormatError",
    "NumericColumnError",
    "StructureError",
    "TooManyStatesError",
    "TreelearnError",
    "UnseenStateError",
]


class TreelearnError(ValueError):
    """Base class of every input error raised by treelearn."""


class EmptyDataError(TreelearnError):
    """The table has no rows or no columns."""


class DuplicateColumnError(TreelearnError):
    """Two columns share a name."""


class ColumnNotFoundError(TreelearnError, KeyError):
    """A root, class or variable name is not a column of the data."""

    def __str__(self) -> str:  # KeyError would add quotes around the message
        return str(self.args[0]) if self.args else ""


class MissingValuesError(TreelearnError):
    """Missing values were found and ``missing="error"``."""


class NumericColumnError(TreelearnError):
    """A float column is not a small set of integer values: it needs discretizing."""


class TooManyStatesError(TreelearnError):
    """A column has more distinct values than ``max_states``."""


class UnseenStateError(TreelearnError):
    """A value that is not one of the model's states for that column."""


class StructureError(TreelearnError):
    """A graph that cannot serve as the requested structure (cycle, wrong nodes...)."""


class ClassLabelError(TreelearnError):
    """The class labels ``y`` cannot train a classifier (one class, wrong length or shape)."""


class ClassColumnError(DuplicateColumnError):
    """The class is also a column of the features ``X``."""


class FeatureMismatchError(TreelearnError):
    """The features given to a fitted classifier differ from those it was fitted on."""


# ---------------------------------------------------------------------- model files
# Here, not in io.py, so that what saves and loads (model.py, classify.py, jsonfile.py)
# raises them without importing io.py, which builds models and would import them back.
class ModelFileError(TreelearnError):
    """A model file that cannot be loaded."""


class CorruptModelFileError(ModelFileError):
    """The file is not valid JSON (for example cut short)."""


class ModelFormatError(ModelFileError):
    """Not a treelearn model file, or a format version or kind this treelearn cannot read."""


class InvalidModelError(ModelFileError):
    """The file parses but its contents are inconsistent (CPT shape or sums, states...)."""
