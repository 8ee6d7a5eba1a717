"""The one persistence codec of estimators: the header written and restored once, each
estimator's fitted parts beside it, every loaded field checked.

A saved estimator (the ``"state"`` of a file, see :mod:`treelearn.export._jsonfile`)
is one JSON object. Its header is the same for every estimator; the fields an
estimator has not are left out:

=====================  ========================================================
``estimator``          the class name (:data:`ESTIMATORS` maps it to the class)
``params``             ``get_params()``, each value through :func:`json_value`
``n_features``         ``n_features_in_``
``feature_names``      ``feature_names_in_`` (labels keep their types)
``classes``            ``classes_``, and ``classes_dtype`` (numpy text as ``"<U5"``, rebuilt from the labels)
``class_name``         ``class_name_``, the class node's name
``class_count``        ``class_count_`` exactly: integers for whole weights, else floats
``class_log_prior``    ``class_log_prior_`` (``-inf`` for a class of prior 0)
=====================  ========================================================

Beside it, each estimator writes only its fitted parts (``_fitted_state``) and
restores them from a :class:`SavedState` (``_restore_fitted``), whose readers check
every field (shape, finite, non-negative, normalised, distinct labels) and raise an
:class:`~treelearn.InvalidModelError` naming the field: a hand-edited file never
gives a silently wrong estimator.

Every class that mixes in :class:`Persistent` is registered under its name
(``__init_subclass__``): that registry is what a file may name, so adding an
estimator is one class (and its facade entry).

>>> from sklearn.base import BaseEstimator
>>> class Counter(Persistent, BaseEstimator):
...     def __init__(self, start=0):
...         self.start = start
...     def fit(self, X):
...         self.n_features_in_, self.total_ = X.shape[1], X.sum(axis=0)
...         return self
...     def _fitted_state(self):
...         return {"total": self.total_.tolist()}
...     def _restore_fitted(self, saved):
...         self.total_ = saved.array("total", shape=(None,), low=0)
>>> state = Counter(start=2).fit(np.array([[1.0, 1.0], [0.0, 2.0]])).to_dict()
>>> state["estimator"], state["params"], state["n_features"], state["total"]
('Counter', {'start': 2}, 2, [1.0, 3.0])
>>> Counter.from_dict(state).total_.tolist()
[1.0, 3.0]
>>> state["total"] = [1.0, float("nan")]
>>> Counter.from_dict(state)
Traceback (most recent call last):
...
treelearn.InvalidModelError: saved Counter: field 'total' must hold finite numbers >= 0
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from .errors import InvalidModelError, TreelearnError
from .jsonvalues import (
    DecodeError,
    EncodeError,
    decode_dtype,
    decode_label,
    encode_label,
    from_json_value,
    json_value,
)
from .validation import check_params

__all__ = ["ESTIMATORS", "Persistent", "SavedState", "label_array"]

#: every persistent estimator class by name (filled as the classes are defined)
ESTIMATORS: dict[str, type[Persistent]] = {}

#: a numpy text dtype as ``str()`` writes it (``<U21``), and the widest one a file may name
_TEXT_DTYPE = re.compile(r"^[<>|=]?U(\d*)$")
_MAX_TEXT_WIDTH = 4096
_FIELD = object()  # SavedState.array: the whole field


def label_array(labels: Sequence, dtype: Any = object) -> np.ndarray:
    """A 1-D array of ``labels``, filled one by one: ``np.asarray`` would turn tuple
    labels (e.g. MultiIndex column names) into a second axis.

    >>> label_array([("a", 1), ("b", 2)]).shape
    (2,)
    """
    out = np.empty(len(labels), dtype=dtype)
    for i, label in enumerate(labels):
        out[i] = label
    return out


def _exact_counts(values: np.ndarray) -> list:
    """Counts as JSON numbers that read back exactly: integers when every count is
    whole (and the array is of an integer dtype), else floats (``repr`` round-trips)."""
    if values.dtype.kind in "iu":
        return [int(v) for v in values]
    return [float(v) for v in values]


class Persistent:
    """Mixin of every estimator that :func:`treelearn.save` can write: the registry, and
    ``to_dict``/``from_dict`` written once (the header here, the fitted parts by the hooks).

    A subclass supplies ``_fitted_state()`` (its fitted parts as JSON values) and
    ``_restore_fitted(saved)`` (set them from a :class:`SavedState`, checked).
    """

    #: the kind a saved file names (``"classifier"`` for the classifiers)
    kind: ClassVar[str] = "estimator"
    #: option -> accepted forms (:mod:`~treelearn._base.validation`), checked by ``fit``
    #: and on loading
    _parameter_constraints: ClassVar[dict] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        ESTIMATORS[cls.__name__] = cls

    if TYPE_CHECKING:  # every Persistent is also a scikit-learn estimator, which has these

        def get_params(self, deep: bool = True) -> dict[str, Any]: ...

    # ------------------------------------------------------------ writing
    def to_dict(self) -> dict:
        """Everything needed to rebuild this fitted estimator, as JSON-able values (the
        ``"state"`` of a saved file); :meth:`from_dict` is the inverse."""
        self._require_fitted()
        try:
            return {**self._header(), **self._fitted_state()}
        except EncodeError as exc:  # jsonvalues knows no treelearn errors
            raise TreelearnError(str(exc)) from None

    def _require_fitted(self) -> None:
        from sklearn.utils.validation import check_is_fitted  # every estimator is one

        check_is_fitted(self)

    def _header(self) -> dict:
        header: dict = {
            "estimator": type(self).__name__,
            "params": {k: json_value(v) for k, v in self.get_params(deep=False).items()},
        }
        if hasattr(self, "n_features_in_"):
            header["n_features"] = int(self.n_features_in_)
        names = getattr(self, "feature_names_in_", None)
        if names is not None:
            header["feature_names"] = [encode_label(f) for f in names]
        if hasattr(self, "classes_"):
            classes = np.asarray(self.classes_)
            header["classes"] = [encode_label(c) for c in classes]
            header["classes_dtype"] = str(classes.dtype)
        if hasattr(self, "class_name_"):
            header["class_name"] = encode_label(self.class_name_)
        if hasattr(self, "class_count_"):
            header["class_count"] = _exact_counts(np.asarray(self.class_count_))
        if hasattr(self, "class_log_prior_"):
            header["class_log_prior"] = [json_value(float(v)) for v in self.class_log_prior_]
        return header

    def _fitted_state(self) -> dict:
        raise NotImplementedError(f"{type(self).__name__} defines no fitted state to save")

    # ------------------------------------------------------------ reading
    @classmethod
    def from_dict(cls, state: Any) -> Any:
        """The fitted estimator that :meth:`to_dict` describes; a field that does not
        check out raises :class:`~treelearn.InvalidModelError` naming it."""
        saved = SavedState(state, cls.__name__)
        try:
            est = cls(**saved.params())
        except TypeError as exc:
            raise InvalidModelError(
                f"saved {cls.__name__}: field 'params' does not fit the estimator ({exc})"
            ) from None
        cls._check_saved_params(saved, est)
        for key in cls._saved_header:
            if not saved.has(key):
                raise saved.fail(key, "is missing")
        saved.restore_header(est)
        est._restore_fitted(saved)
        return est

    #: the header fields every file of the class holds (a file without one is refused)
    _saved_header: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def _check_saved_params(cls, saved: SavedState, est: Any) -> None:
        """Every option saved (a dropped one would be its default: maybe another model)
        and valid (``_parameter_constraints``, as ``fit`` checks them)."""
        given = saved.raw("params", dict)
        missing = [k for k in est.get_params(deep=False) if k not in given]
        if missing:
            raise saved.fail(
                "params",
                f"lacks the option(s) {missing} (a file written before they existed, by an "
                f"older treelearn, or edited): learn the model again and save it",
            )
        try:
            check_params(est.get_params(deep=False), cls._parameter_constraints)
        except TreelearnError as exc:
            raise saved.fail("params", f"holds a bad option: {exc}") from None

    def _restore_fitted(self, saved: SavedState) -> None:
        raise NotImplementedError(f"{type(self).__name__} defines no fitted state to restore")


class SavedState:
    """A saved estimator's fields, each read and checked once (see the module docstring).

    Every reader raises :class:`~treelearn.InvalidModelError` naming the field.
    """

    def __init__(self, state: Any, estimator: str) -> None:
        if not isinstance(state, Mapping):
            raise InvalidModelError(
                f"a saved {estimator} must be a JSON object, not {type(state).__name__}"
            )
        if state.get("estimator") != estimator:
            raise InvalidModelError(
                f"the saved state is a {state.get('estimator')!r}, not a {estimator}"
            )
        self.state = state
        self.estimator = estimator

    # ------------------------------------------------------------ raw fields
    def fail(self, key: str, what: str) -> InvalidModelError:
        """The error for field ``key`` (``what``: how it is wrong)."""
        return InvalidModelError(f"saved {self.estimator}: field {key!r} {what}")

    def has(self, key: str) -> bool:
        return self.state.get(key) is not None

    def raw(self, key: str, kind: type | tuple = object) -> Any:
        """The field as stored (``kind``: the JSON type it must have)."""
        if key not in self.state:
            raise self.fail(key, "is missing")
        value = self.state[key]
        if not isinstance(value, kind):
            raise self.fail(
                key, f"must be a {getattr(kind, '__name__', kind)}, not {type(value).__name__}"
            )
        return value

    def value(self, key: str) -> Any:
        """A setting-like field, through :func:`from_json_value`."""
        try:
            return from_json_value(self.raw(key))
        except DecodeError as exc:
            raise self.fail(key, f"is not a saved value ({exc})") from None

    def params(self) -> dict:
        params = self.raw("params", dict)
        try:
            return {k: from_json_value(v) for k, v in params.items()}
        except DecodeError as exc:
            raise self.fail("params", f"holds a value that is no saved value ({exc})") from None

    def label(self, key: str) -> Hashable:
        try:
            return decode_label(self.raw(key))
        except DecodeError as exc:
            raise self.fail(key, f"is not a saved label ({exc})") from None

    def labels(self, key: str, *, distinct: bool = True) -> list:
        return self.labels_in(self.raw(key, list), key, distinct=distinct)

    def labels_in(self, raw: Any, key: str, *, distinct: bool = True) -> list:
        """The labels of ``raw`` (a list inside field ``key``, e.g. one feature's states)."""
        if not isinstance(raw, list):
            raise self.fail(key, f"must hold lists of labels, not {type(raw).__name__}")
        try:
            labels = [decode_label(v) for v in raw]
        except DecodeError as exc:
            raise self.fail(key, f"holds a value that is no saved label ({exc})") from None
        if any(isinstance(v, float) and v != v for v in labels):
            raise self.fail(key, "holds NaN, which is no label (a missing value)")
        if distinct:
            try:
                unique = len(set(labels)) == len(labels)
            except TypeError:
                raise self.fail(key, "holds labels that cannot be compared") from None
            if not unique:
                raise self.fail(key, f"must hold distinct labels, got {labels[:10]}")
        return labels

    def array(
        self,
        key: str,
        shape: tuple | None = None,
        *,
        dtype: Any = float,
        low: float | None = None,
        positive: bool = False,
        finite: bool = True,
        log_normalised: int | None = None,
        normalised: int | None = None,
        value: Any = _FIELD,
    ) -> np.ndarray:
        """A numeric array field, checked.

        ``shape``: the expected shape (``None`` for a free axis); ``low``: every
        value ``>= low``; ``positive``: every value ``> 0``; ``finite``: no NaN or
        infinity; ``normalised=axis``: probabilities summing to 1 along that axis;
        ``log_normalised=axis``: log-probabilities (``-inf`` allowed) whose
        exponentials sum to 1 along that axis; ``value``: a part of field ``key`` to read
        instead of the whole field.
        """
        raw = self.raw(key) if value is _FIELD else value
        try:
            decoded = np.asarray(from_json_value(raw))
            if decoded.dtype.kind not in "biuf":  # numpy would read the text "7" as 7.0
                raise TypeError(decoded.dtype)
            values = decoded.astype(
                dtype,
                casting="unsafe"
                if decoded.dtype.kind == "f" and np.dtype(dtype).kind in "iu"
                else "same_kind",
            )
            if (
                values.dtype.kind in "iu"
                and decoded.dtype.kind == "f"
                and not np.array_equal(values, decoded)
            ):
                raise TypeError(decoded.dtype)  # 1.5 as an index
        except (DecodeError, TypeError, ValueError, OverflowError):
            raise self.fail(key, "is not a rectangular array of numbers") from None
        if shape is not None and (
            values.ndim != len(shape)
            or any(want is not None and got != want for got, want in zip(values.shape, shape))
        ):
            want = tuple("any" if s is None else s for s in shape)
            raise self.fail(key, f"has shape {values.shape}, expected {want}")
        if values.dtype.kind not in "biuf":
            return values
        bad = np.isnan(values)
        if log_normalised is not None:
            bad |= values > 0
        elif finite:
            bad |= ~np.isfinite(values)
        if low is not None:
            bad |= values < low
        if positive:
            bad |= values <= 0
        if bad.any():
            bounds = (
                " > 0"
                if positive
                else f" >= {low:g}"
                if low is not None
                else " <= 0 (log-probabilities)"
                if log_normalised is not None
                else ""
            )
            what = "finite numbers" if finite and log_normalised is None else "numbers"
            raise self.fail(key, f"must hold {what}{bounds}")
        if (
            normalised is not None
            and values.size
            and not np.allclose(values.sum(axis=normalised), 1.0, rtol=0, atol=1e-9)
        ):
            raise self.fail(key, f"must hold probabilities that sum to 1 (along axis {normalised})")
        if (
            log_normalised is not None
            and values.size
            and not np.allclose(np.exp(values).sum(axis=log_normalised), 1.0, rtol=0, atol=1e-9)
        ):
            raise self.fail(key, "must hold log-probabilities whose exponentials sum to 1")
        return values

    def counts(self, key: str, shape: tuple | None = None) -> np.ndarray:
        """Non-negative finite counts, exactly as saved: int64 when every one is a JSON
        integer, else float64 (fractional weights are never truncated)."""
        raw = self.raw(key, list)
        whole = all(isinstance(v, int) and not isinstance(v, bool) for v in raw)
        return self.array(key, shape, dtype=np.int64 if whole else float, low=0)

    # ------------------------------------------------------------ the header
    def restore_header(self, est: Any) -> None:
        """Set the header's attributes on ``est``, each checked against the others."""
        state = self.state
        if "n_features" in state:
            n = self.raw("n_features", int)
            if n < 0:
                raise self.fail("n_features", "must be >= 0")
            est.n_features_in_ = n
        if self.has("feature_names"):
            names = self.labels("feature_names")
            if "n_features" in state and len(names) != est.n_features_in_:
                raise self.fail(
                    "feature_names", f"has {len(names)} names for {est.n_features_in_} features"
                )
            est.feature_names_in_ = label_array(names)
            est.n_features_in_ = len(names)
        if "classes" not in state:
            return
        labels = self.labels("classes")
        if len(labels) < 2:
            raise self.fail("classes", f"must hold 2 or more distinct labels, got {labels}")
        est.classes_ = self._classes(labels)
        try:  # fit sorts them (np.unique): in any other order each label names another class
            ordered = bool(np.all(np.unique(est.classes_) == est.classes_))
        except TypeError:
            ordered = False
        if not ordered:
            raise self.fail("classes", f"must be sorted as fit sorts them, got {labels[:10]}")
        k = len(labels)
        if "class_name" in state:
            est.class_name_ = self.label("class_name")
            features = getattr(est, "feature_names_in_", ())
            if any(est.class_name_ == f for f in features):
                raise self.fail("class_name", f"{est.class_name_!r} is also a feature")
        if "class_count" in state:
            est.class_count_ = self.counts("class_count", (k,))
        if "class_log_prior" in state:
            est.class_log_prior_ = self.array("class_log_prior", (k,), log_normalised=0)

    def _classes(self, labels: list) -> np.ndarray:
        text = self.state.get("classes_dtype")
        match = _TEXT_DTYPE.match(text) if isinstance(text, str) else None
        if match:  # numpy text: the saved width, bounded (decode_dtype refuses fixed widths)
            if not all(isinstance(v, str) for v in labels):
                raise self.fail("classes", "must hold text labels for a text dtype")
            longest = max(len(v) for v in labels)
            width = int(match.group(1) or 0)
            if not longest <= width <= _MAX_TEXT_WIDTH:
                raise self.fail(
                    "classes_dtype",
                    f"{text!r} must hold the longest label "
                    f"({longest} characters) and at most "
                    f"{_MAX_TEXT_WIDTH}",
                )
            return np.array(labels, dtype=f"<U{width}")
        try:
            dtype = decode_dtype(text) if text is not None else object
        except DecodeError as exc:
            raise self.fail("classes_dtype", f"is not a saved dtype ({exc})") from None
        try:
            classes = label_array(labels, dtype)
        except (TypeError, ValueError, OverflowError):
            raise self.fail("classes", f"cannot be held in dtype {text}") from None
        if classes.dtype.kind in "biuf" and classes.tolist() != labels:
            raise self.fail("classes", f"change when held in dtype {text}")
        return classes
