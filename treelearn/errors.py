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
    "DuplicateColumnError",
    "EmptyDataError",
    "FeatureMismatchError",
    "MissingValuesError",
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
