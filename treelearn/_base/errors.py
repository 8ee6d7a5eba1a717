"""One exception family for bad input.

Every class subclasses :class:`TreelearnError`, itself a :class:`ValueError`,
so ``except ValueError`` keeps working for callers that do not care which.
Messages name the column, the offending value or count, and the fix.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any, TypeVar

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

#: an error of any class of the family (what :meth:`TreelearnError.copied` returns)
_Error = TypeVar("_Error", bound="TreelearnError")


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

    def copied(self: _Error, message: str | None = None) -> _Error:
        """A copy of this error, of its class, with fields of its own (changing the copy's
        ``reason`` or ``fixes`` leaves this one as it is) and ``message`` if given.

        Not ``copy.copy``: that goes through :mod:`copyreg`, where tblib (which Dask's
        ``distributed`` installs) registers a reducer for every exception class whose copy
        *shares* the original's ``__dict__``.

        >>> err = TreelearnError("column 'a' is bad: drop it", column="a", reason="bad")
        >>> out = err.copied("column 'a' is bad (row 3): drop it")
        >>> out.reason = "bad (row 3)"
        >>> err.reason, str(out), out.column
        ('bad', "column 'a' is bad (row 3): drop it", 'a')
        """
        out = type(self).__new__(type(self))
        out.__dict__.update(self.__dict__)
        out.args = self.args if message is None else (message, *self.args[1:])
        return out


class InputTypeError(TreelearnError, TypeError):
    """An argument of the wrong type (a list where a DataFrame belongs...).

    Also a :class:`TypeError`, so ``except TypeError`` keeps working.

    See Also
    --------
    TreelearnError : the family's base class.

    Examples
    --------
    >>> import treelearn as tl
    >>> try:
    ...     tl.chow_liu([["x", "y"], ["y", "y"]])   # a list, not a table
    ... except tl.InputTypeError as err:
    ...     print(isinstance(err, TypeError), "pd.DataFrame" in str(err))
    True True
    """


class DataFileError(TreelearnError):
    """A data file that cannot be read (not CSV/Parquet, ragged rows, not UTF-8, a directory).

    See Also
    --------
    read_data : reads CSV and Parquet files, and raises it.

    Examples
    --------
    >>> import tempfile, treelearn as tl
    >>> try:
    ...     tl.read_data(tempfile.mkdtemp())   # a directory without Parquet files
    ... except tl.DataFileError as err:
    ...     print("is a directory" in str(err))
    True
    """


class ResourceLimitError(TreelearnError):
    """A request that would need more memory than treelearn allows (say how much, and the fix).

    The limits are ``treelearn.limits.MEMORY_LIMIT`` and its neighbours; the check comes
    before any allocation, so the refusal is immediate.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/asia.csv").head(100)
    >>> try:
    ...     tl.BaggedTrees(n_estimators=10**9).fit(df)   # refused before any work
    ... except tl.ResourceLimitError as err:
    ...     print("treelearn.limits.MEMORY_LIMIT" in str(err))
    True
    """


class EmptyDataError(TreelearnError):
    """The table has no rows or no columns.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> try:
    ...     tl.chow_liu(pd.DataFrame())
    ... except tl.EmptyDataError as err:
    ...     print("no columns" in str(err))
    True
    """


class DuplicateColumnError(TreelearnError):
    """Two columns share a name.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> try:
    ...     tl.chow_liu(pd.DataFrame([["x", "y"]], columns=["a", "a"]))
    ... except tl.DuplicateColumnError as err:
    ...     print(err.column)
    a
    """


class ColumnNotFoundError(TreelearnError, KeyError):
    """A root, class or variable name is not a column of the data.

    Also a :class:`KeyError`, so ``except KeyError`` keeps working.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/asia.csv")
    >>> try:
    ...     tl.chow_liu(df, root="age")
    ... except tl.ColumnNotFoundError as err:
    ...     print(err.column, isinstance(err, KeyError))
    age True
    """

    def __str__(self) -> str:  # KeyError would add quotes around the message
        return str(self.args[0]) if self.args else ""


class MissingValuesError(TreelearnError):
    """Missing values were found and ``missing="error"``.

    The message names the columns and how many cells each misses, and the fixes
    (``missing="drop"``, ``"pairwise"`` or ``"em"``).

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.DataFrame({"a": ["x", None, "y"], "b": ["u", "v", "u"]})
    >>> try:
    ...     tl.chow_liu(df)
    ... except tl.MissingValuesError as err:
    ...     print(err.column)
    a
    >>> tl.chow_liu(df, missing="drop").n_rows
    2
    """


class NumericColumnError(TreelearnError):
    """A float column is not a small set of integer values: it needs discretizing.

    The message names the fixes: bins (:func:`~treelearn.discretize`) or a model of
    numbers (:func:`~treelearn.clg_tree`, :func:`~treelearn.gaussian_chow_liu`).

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.DataFrame({"a": [0.5, 1.7, 2.25], "b": ["u", "v", "u"]})
    >>> try:
    ...     tl.chow_liu(df)
    ... except tl.NumericColumnError as err:
    ...     print(err.column)
    a
    """


class TooManyStatesError(TreelearnError):
    """A column has more distinct values than ``max_states``.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.DataFrame({"id": ["r1", "r2", "r3", "r4"], "b": ["u", "v", "u", "v"]})
    >>> try:
    ...     tl.chow_liu(df, max_states=3)
    ... except tl.TooManyStatesError as err:
    ...     print(err.column)
    id
    """


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
        type_fix: str = "give states of the data's type",
    ) -> None:
        self.n_rows, self.dtype, self.where, self.noun = n_rows, dtype, where, noun
        self.type_fix = type_fix
        values, states = list(values), list(states)
        hint = self.DEFAULT_HINT if hint is None else hint
        rows = f" ({n_rows} rows)" if n_rows is not None else ""
        message = (
            f"{where}{noun} {column!r} has value(s) {', '.join(map(repr, values[:5]))}{rows} "
            f"outside its states {states}."
            f"{self.type_mismatch(column, values, states, dtype, type_fix)} "
            f"{hint}"
        )
        super().__init__(message.rstrip(), column=column, values=values, states=states, hint=hint)

    @staticmethod
    def type_mismatch(
        column: Hashable,
        values: Sequence,
        states: Sequence,
        dtype: Any,
        fix: str = "give states of the data's type",
    ) -> str:
        """A sentence when the values are of another type than every state (else ""),
        ending in ``fix`` (in the words of the interface the error reaches)."""
        kinds = {type(v).__name__ for v in states}
        if dtype is None or not values or len(kinds) != 1 or type(values[0]).__name__ in kinds:
            return ""
        return f" The data stores {column!r} as {dtype} while its states are {kinds.pop()}: {fix}."

    def with_hint(
        self, hint: str, where: str | None = None, type_fix: str | None = None
    ) -> UnseenStateError:
        """The same error with another fix (and optionally another prefix, and another fix
        of a type mismatch)."""
        return UnseenStateError(
            self.column,
            self.values,
            self.states,
            n_rows=self.n_rows,
            dtype=self.dtype,
            where=self.where if where is None else where,
            noun=self.noun,
            hint=hint,
            type_fix=self.type_fix if type_fix is None else type_fix,
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
                self.type_fix,
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

    Examples
    --------
    >>> import warnings, numpy as np, pandas as pd, treelearn as tl
    >>> df = pd.DataFrame({"a": np.arange(300) % 60, "b": np.arange(300) % 2})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     model = tl.chow_liu(df)
    >>> [(w.category.__name__, w.message.column, w.message.n_states) for w in caught]
    [('NumericColumnWarning', 'a', 60)]
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
    """A graph that cannot serve as the requested structure (cycle, wrong nodes...).

    Examples
    --------
    >>> import networkx as nx, treelearn as tl
    >>> try:
    ...     tl.orient(nx.cycle_graph(3), 0)
    ... except tl.StructureError as err:
    ...     print(err)
    orient needs a tree or forest; the graph has a cycle
    """


class ClassLabelError(TreelearnError):
    """The class labels ``y`` cannot train a classifier (one class, wrong length or shape).

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/asia.csv")
    >>> try:
    ...     tl.NaiveBayes().fit(df.drop(columns="either"), ["yes"] * len(df))
    ... except tl.ClassLabelError as err:
    ...     print("single class" in str(err))
    True
    """


class ClassColumnError(DuplicateColumnError):
    """The class is also a column of the features ``X``.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/asia.csv")
    >>> try:
    ...     tl.NaiveBayes().fit(df, df["either"])   # 'either' is still in X
    ... except tl.ClassColumnError as err:
    ...     print(err.column)
    either
    """


class FeatureMismatchError(TreelearnError):
    """The features given to a fitted classifier differ from those it was fitted on.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/asia.csv")
    >>> X, y = df.drop(columns="either"), df["either"]
    >>> clf = tl.NaiveBayes().fit(X, y)
    >>> try:
    ...     clf.predict(X.drop(columns="asia"))
    ... except tl.FeatureMismatchError as err:
    ...     print("missing ['asia']" in str(err))
    True
    >>> clf.predict(X.drop(columns="asia").reindex(columns=clf.feature_names_in_))[:3]
    array(['no', 'no', 'no'], dtype=object)
    """


class CapabilityError(TreelearnError):
    """Something asked of a model kind that it does not answer (its ``capabilities`` do not
    list it): ``capability`` names what was asked, ``kind`` the kind, ``supported`` what
    it answers instead (so a front end can word the alternatives as its own commands).

    See Also
    --------
    Model : every model's ``capabilities`` and ``require``.

    Examples
    --------
    >>> import numpy as np, pandas as pd, treelearn as tl
    >>> rng = np.random.default_rng(0)
    >>> model = tl.gaussian_chow_liu(pd.DataFrame(rng.normal(size=(50, 3)), columns=list("abc")))
    >>> try:
    ...     model.require("bif")   # a BIF file holds discrete networks only
    ... except tl.CapabilityError as err:
    ...     print(err.capability, err.kind, "query" in err.supported)
    bif gaussian_tree True
    """

    def __init__(
        self,
        message: str = "",
        *,
        capability: str | None = None,
        kind: str | None = None,
        supported: Sequence[str] = (),
        hint: str | None = None,
        reason: str | None = None,
        fixes: Sequence[str] = (),
    ) -> None:
        super().__init__(message, hint=hint, reason=reason, fixes=fixes)
        self.capability, self.kind, self.supported = capability, kind, tuple(supported)

    def __reduce__(self) -> tuple:
        return (
            _rebuild_capability,
            (
                str(self),
                self.capability,
                self.kind,
                self.supported,
                self.hint,
                self.reason,
                self.fixes,
            ),
        )


def _rebuild_capability(
    message, capability, kind, supported, hint, reason=None, fixes=()
) -> CapabilityError:
    return CapabilityError(
        message,
        capability=capability,
        kind=kind,
        supported=supported,
        hint=hint,
        reason=reason,
        fixes=fixes,
    )


def _rebuild_unseen(
    column, values, states, n_rows, dtype, where, noun, hint, type_fix
) -> UnseenStateError:
    return UnseenStateError(
        column,
        values,
        states,
        n_rows=n_rows,
        dtype=dtype,
        where=where,
        noun=noun,
        hint=hint,
        type_fix=type_fix,
    )


# ---------------------------------------------------------------------- model files
# Here, not in io.py, so that what saves and loads (model.py, classify.py, jsonfile.py)
# raises them without importing io.py, which builds models and would import them back.
class ModelFileError(TreelearnError):
    """A model file that cannot be loaded.

    The base of :class:`CorruptModelFileError`, :class:`ModelFormatError` and
    :class:`InvalidModelError`: ``except tl.ModelFileError`` catches every refusal of
    :func:`~treelearn.load`.

    Examples
    --------
    >>> import os, tempfile, treelearn as tl
    >>> path = os.path.join(tempfile.mkdtemp(), "empty.json")
    >>> with open(path, "w") as f:
    ...     _ = f.write("")
    >>> try:
    ...     tl.load(path)
    ... except tl.ModelFileError as err:
    ...     print(type(err).__name__)
    CorruptModelFileError
    """


class CorruptModelFileError(ModelFileError):
    """The file is not valid JSON (for example cut short).

    Examples
    --------
    >>> import os, tempfile, treelearn as tl
    >>> path = os.path.join(tempfile.mkdtemp(), "cut.json")
    >>> with open(path, "w") as f:
    ...     _ = f.write('{"format": ')
    >>> try:
    ...     tl.load(path)
    ... except tl.CorruptModelFileError as err:
    ...     print("not valid JSON" in str(err))
    True
    """


class ModelFormatError(ModelFileError):
    """Not a treelearn model file, or a format version or kind this treelearn cannot read.

    Examples
    --------
    >>> import os, tempfile, treelearn as tl
    >>> path = os.path.join(tempfile.mkdtemp(), "other.json")
    >>> with open(path, "w") as f:
    ...     _ = f.write('{"hello": 1}')
    >>> try:
    ...     tl.load(path)
    ... except tl.ModelFormatError as err:
    ...     print("not a treelearn model file" in str(err))
    True
    """


class InvalidModelError(ModelFileError):
    """The file parses but its contents are inconsistent (CPT shape or sums, states...).

    Examples
    --------
    >>> import json, os, tempfile, pandas as pd, treelearn as tl
    >>> model = tl.chow_liu(pd.DataFrame({"a": ["x", "y", "y"], "b": ["u", "v", "v"]}))
    >>> path = os.path.join(tempfile.mkdtemp(), "m.json")
    >>> tl.save(model, path)
    >>> with open(path) as f:
    ...     doc = json.load(f)
    >>> doc["model"]["nodes"][0]["cpt"] = [0.5, 0.7]   # sums to 1.2
    >>> with open(path, "w") as f:
    ...     json.dump(doc, f)
    >>> try:
    ...     tl.load(path)
    ... except tl.InvalidModelError as err:
    ...     print(type(err).__name__)
    InvalidModelError
    """


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
