"""One exception family for bad input.

Every class subclasses :class:`TreelearnError`, itself a :class:`ValueError`,
so ``except ValueError`` keeps working for callers that do not care which.
Messages name the column, the offending value or count, and the fix.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

__all__ = [
    "CapabilityError",
    "ClassColumnError",
    "ClassLabelError",
    "ColumnNotFoundError",
    "CorruptModelFileError",
    "DataFileError",
    "DuplicateColumnError",
    "EmptyDataError",
    "FeatureMismatchError",
    "InputTypeError",
    "InvalidModelError",
    "MissingValuesError",
    "ModelFileError",
    "ModelFormatError",
    "NumericColumnError",
    "NumericColumnWarning",
    "ResourceLimitError",
    "StructureError",
    "TableProblemsError",
    "TooManyStatesError",
    "TreelearnError",
    "UnseenStateError",
]


class TreelearnError(ValueError):
    """Base class of every input error raised by treelearn.

    Besides the message, an error carries what it is about as fields, so code
    that catches it can say the same thing differently without editing text:
    ``column`` (the column or variable), ``values`` (the offending values),
    ``states`` (the allowed states) and ``hint`` (the fix). Errors about a
    table's columns also carry ``reason`` (what is wrong, without the fix) and
    ``fixes`` (the fixes by name: ``"discretize"``, ``"categorical"``, ``"drop"``,
    ``"max_states"``, ``"missing"``, ``"fill"``), so a front end such as the
    command line can word the fix in its own terms.

    >>> err = TreelearnError("bad column 'a'", column="a", hint="drop it")
    >>> err.column, err.hint
    ('a', 'drop it')
    """

    def __init__(
        self,
        message: str = "",
        *,
        column: Hashable | None = None,
        values: Sequence | None = None,
        states: Sequence | None = None,
        hint: str | None = None,
        reason: str | None = None,
        fixes: Sequence[str] = (),
    ) -> None:
        super().__init__(message)
        self.column = column
        self.values = values
        self.states = states
        self.hint = hint
        self.reason = reason
        self.fixes = tuple(fixes)


class InputTypeError(TreelearnError, TypeError):
    """An argument of the wrong type (a list where a DataFrame belongs...).

    Also a :class:`TypeError`, so ``except TypeError`` keeps working.
    """


class DataFileError(TreelearnError):
    """A data file that cannot be read (not CSV/Parquet, ragged rows, not UTF-8, a directory)."""


class ResourceLimitError(TreelearnError):
    """A request that would need more memory than treelearn allows (say how much, and the fix)."""


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
    """A value that is not one of the states of its column (or variable).

    The message is built from the fields: ``column``, ``values`` (at most five
    shown), ``states``, ``n_rows`` (rows with such values, when known),
    ``dtype`` (the data's dtype, to point out labels of another type, e.g. the
    number 1 against the text state ``"1"``), ``where`` (a prefix naming the file
    rows or the call) and ``hint`` (the fix, which depends on the caller: use
    :meth:`with_hint` to say it differently).

    >>> err = UnseenStateError("a", ["w"], ["x", "y"], n_rows=1)
    >>> str(err.with_hint("Drop that row."))
    "column 'a' has value(s) 'w' (1 rows) outside its states ['x', 'y']. Drop that row."
    """

    DEFAULT_HINT = (
        "Fix the data, pass unseen='ignore' to treat them as missing, or give the column "
        "these states when learning."
    )
    # always given here (TreelearnError's are optional)
    values: Sequence[Any]
    states: Sequence[Any]

    def __init__(
        self,
        column: Hashable,
        values: Sequence,
        states: Sequence,
        *,
        n_rows: int | None = None,
        dtype: Any = None,
        where: str = "",
        noun: str = "column",
        hint: str | None = None,
    ) -> None:
        self.n_rows, self.dtype, self.where, self.noun = n_rows, dtype, where, noun
        values, states = list(values), list(states)
        hint = self.DEFAULT_HINT if hint is None else hint
        rows = f" ({n_rows} rows)" if n_rows is not None else ""
        message = (
            f"{where}{noun} {column!r} has value(s) {', '.join(map(repr, values[:5]))}{rows} "
            f"outside its states {states}.{self.type_mismatch(column, values, states, dtype)} "
            f"{hint}"
        )
        super().__init__(message.rstrip(), column=column, values=values, states=states, hint=hint)

    @staticmethod
    def type_mismatch(column: Hashable, values: Sequence, states: Sequence, dtype: Any) -> str:
        """A sentence when the values are of another type than every state (else "")."""
        kinds = {type(v).__name__ for v in states}
        if dtype is None or not values or len(kinds) != 1 or type(values[0]).__name__ in kinds:
            return ""
        return (
            f" The data stores {column!r} as {dtype} while its states are {kinds.pop()}: "
            f"give states of the data's type."
        )

    def with_hint(self, hint: str, where: str | None = None) -> UnseenStateError:
        """The same error with another fix (and optionally another prefix)."""
        return UnseenStateError(
            self.column,
            self.values,
            self.states,
            n_rows=self.n_rows,
            dtype=self.dtype,
            where=self.where if where is None else where,
            noun=self.noun,
            hint=hint,
        )

    def __reduce__(self):  # pickling (Dask workers send errors back) keeps the fields
        return (
            _rebuild_unseen,
            (
                self.column,
                self.values,
                self.states,
                self.n_rows,
                self.dtype,
                self.where,
                self.noun,
                self.hint,
            ),
        )


class TableProblemsError(TreelearnError):
    """Several columns of a table cannot be used as they are: one error lists them all.

    ``problems`` holds one error per problem (each with its ``column``,
    ``reason``, ``hint`` and ``fixes``), so nobody has to fix a table one
    column at a time. A table with a single problem raises that problem's own
    error instead (a :class:`NumericColumnError`, :class:`MissingValuesError`...).

    >>> a = NumericColumnError("column 'a' ...: discretize it", column="a")
    >>> b = MissingValuesError("missing values in 'b': drop them", column="b")
    >>> err = TableProblemsError([a, b])
    >>> [p.column for p in err.problems]
    ['a', 'b']
    >>> print(err)
    the table has 2 problems: (1) column 'a' ...: discretize it; (2) missing values in 'b': drop them
    """

    def __init__(self, problems: Sequence[TreelearnError]) -> None:
        self.problems = list(problems)
        message = f"the table has {len(self.problems)} problems: " + "; ".join(
            f"({i}) {p}" for i, p in enumerate(self.problems, 1)
        )
        super().__init__(message, column=self.problems[0].column if self.problems else None)

    def __reduce__(self):  # pickling keeps the problems
        return (TableProblemsError, (self.problems,))


class NumericColumnWarning(UserWarning):
    """A note about a numeric column that treelearn took as categories, and the advice.

    Raised (as a warning) for an integer column with many distinct values (each
    becomes a state, and a many-state variable tends to become the hub of a
    Chow-Liu tree), and for a float column whose few values are all repeated
    (taken as categories). Fields: ``column``, ``n_states`` (its distinct
    values), ``reason`` (the note without the advice), ``fixes`` (as in
    :class:`TreelearnError`) and ``hint`` (the advice, worded for Python).
    Declaring the column categorical (``df[col].astype("category")``) says the
    states are meant and silences the note.
    """

    def __init__(
        self,
        message: str,
        *,
        column: Hashable = None,
        n_states: int = 0,
        reason: str = "",
        fixes: Sequence[str] = (),
        hint: str = "",
    ) -> None:
        super().__init__(message)
        self.column, self.n_states, self.reason = column, n_states, reason
        self.fixes, self.hint = tuple(fixes), hint


class StructureError(TreelearnError):
    """A graph that cannot serve as the requested structure (cycle, wrong nodes...)."""


class ClassLabelError(TreelearnError):
    """The class labels ``y`` cannot train a classifier (one class, wrong length or shape)."""


class ClassColumnError(DuplicateColumnError):
    """The class is also a column of the features ``X``."""


class FeatureMismatchError(TreelearnError):
    """The features given to a fitted classifier differ from those it was fitted on."""


class CapabilityError(TreelearnError):
    """Something asked of a model kind that it does not answer (its ``capabilities`` do not
    list it): ``capability`` names what was asked, ``kind`` the kind, ``supported`` what
    it answers instead (so a front end can word the alternatives as its own commands)."""

    def __init__(
        self,
        message: str = "",
        *,
        capability: str | None = None,
        kind: str | None = None,
        supported: Sequence[str] = (),
        hint: str | None = None,
    ) -> None:
        super().__init__(message, hint=hint)
        self.capability, self.kind, self.supported = capability, kind, tuple(supported)

    def __reduce__(self) -> tuple:
        return (
            _rebuild_capability,
            (str(self), self.capability, self.kind, self.supported, self.hint),
        )


def _rebuild_capability(message, capability, kind, supported, hint) -> CapabilityError:
    return CapabilityError(
        message, capability=capability, kind=kind, supported=supported, hint=hint
    )


def _rebuild_unseen(column, values, states, n_rows, dtype, where, noun, hint) -> UnseenStateError:
    return UnseenStateError(
        column, values, states, n_rows=n_rows, dtype=dtype, where=where, noun=noun, hint=hint
    )


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


# The classes are public as ``treelearn.<Name>``: tracebacks, reprs and pickles name them so,
# whatever module defines them.
for _cls in (
    TreelearnError,
    InputTypeError,
    DataFileError,
    ResourceLimitError,
    EmptyDataError,
    DuplicateColumnError,
    ColumnNotFoundError,
    MissingValuesError,
    NumericColumnError,
    TooManyStatesError,
    UnseenStateError,
    TableProblemsError,
    NumericColumnWarning,
    StructureError,
    ClassLabelError,
    ClassColumnError,
    FeatureMismatchError,
    CapabilityError,
    ModelFileError,
    CorruptModelFileError,
    ModelFormatError,
    InvalidModelError,
):
    _cls.__module__ = "treelearn"
del _cls
