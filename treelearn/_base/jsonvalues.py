"""The one JSON encoding of labels, settings and dtypes (model files and classifier states).

Strings, integers, finite floats, booleans and ``None`` are written as the JSON
values themselves (Python's ``json`` keeps ``1``, ``1.0`` and ``true`` apart);
anything else is an object with one tagged key:

=================  ==============================================  =================
tag                Python value                                    payload
=================  ==============================================  =================
``$float``         ``nan``, ``inf``, ``-inf`` (no JSON literal)    ``repr`` text
``$tuple``         ``tuple`` (e.g. a MultiIndex column name)       list of values
``$timestamp``     ``pd.Timestamp``                                ISO text
``$timedelta``     ``pd.Timedelta``                                ISO text
``$datetime``      ``datetime.datetime``                           ISO text
``$date``          ``datetime.date``                               ISO text
``$interval``      ``pd.Interval``                                 ``[left, right, closed]``
``$array``         ``np.ndarray`` (settings only)                  nested lists
``$dict``          ``dict`` (settings only; keys may be any label)  ``[[key, value], ...]``
=================  ==============================================  =================

A label (a state or a variable name) is a scalar or a tuple of labels
(:func:`encode_label`); a setting or attribute may also be a list, an array or
a dict (:func:`json_value`). Decoding is the exact inverse, types included.

This module imports nothing from treelearn, so every layer can use it: its
errors are plain :class:`ValueError` subclasses (:class:`EncodeError`,
:class:`DecodeError`) that callers turn into treelearn's own.
"""

from __future__ import annotations

import datetime as _dt
import math
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "ALLOWED_EXTENSION_DTYPES",
    "ALLOWED_NUMPY_KINDS",
    "DecodeError",
    "EncodeError",
    "JsonValueError",
    "decode_dtype",
    "decode_label",
    "encode_dtype",
    "encode_label",
    "from_json_value",
    "json_value",
    "python_value",
]


class JsonValueError(ValueError):
    """A value that has no JSON encoding, or JSON that encodes no value."""


class EncodeError(JsonValueError):
    """A label or setting of a type that has no JSON encoding."""


class DecodeError(JsonValueError):
    """JSON that is not the encoding of a label, setting or dtype."""


# ---------------------------------------------------------------------- labels
def encode_label(value: Any) -> Any:
    """A state label or variable name as JSON, keeping its type.

    Examples
    --------
    >>> encode_label(1.0), encode_label(float("nan")), encode_label(("a", 2))
    (1.0, {'$float': 'nan'}, {'$tuple': ['a', 2]})
    >>> decode_label(encode_label(pd.Timestamp("2024-01-02")))
    Timestamp('2024-01-02 00:00:00')
    """
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {"$float": repr(value)}
    if isinstance(value, tuple):
        return {"$tuple": [encode_label(v) for v in value]}
    if isinstance(value, pd.Timestamp):  # before datetime: a Timestamp is a datetime
        return {"$timestamp": value.isoformat()}
    if isinstance(value, pd.Timedelta):
        return {"$timedelta": value.isoformat()}
    if isinstance(value, _dt.datetime):  # before date: a datetime is a date
        return {"$datetime": value.isoformat()}
    if isinstance(value, _dt.date):
        return {"$date": value.isoformat()}
    if isinstance(value, pd.Interval):
        return {"$interval": [encode_label(value.left), encode_label(value.right), value.closed]}
    raise EncodeError(
        f"cannot save the label {value!r} of type {type(value).__name__}: labels must be "
        f"strings, numbers, booleans, dates, intervals or tuples of these"
    )


def decode_label(value: Any) -> Any:
    """Inverse of :func:`encode_label`; raises :class:`DecodeError` for anything else.

    Examples
    --------
    >>> decode_label({"$tuple": ["a", {"$float": "inf"}]})
    ('a', inf)
    """
    return _decode(value, decode_label)


def _decode(value: Any, inner: Any) -> Any:
    """Decode a label; ``inner`` decodes the items of a tuple (labels or settings)."""
    if not isinstance(value, dict):
        if isinstance(value, list):
            raise DecodeError(f"a label cannot be a list: {value!r}")
        return value
    if len(value) != 1:
        raise DecodeError(f"unknown label encoding {value!r}")
    ((tag, payload),) = value.items()
    try:
        if tag == "$float":
            return float(payload)
        if tag == "$tuple":
            return tuple(inner(v) for v in payload)
        if tag == "$timestamp":
            return pd.Timestamp(payload)
        if tag == "$timedelta":
            return pd.Timedelta(payload)
        if tag == "$datetime":
            return _dt.datetime.fromisoformat(payload)
        if tag == "$date":
            return _dt.date.fromisoformat(payload)
        if tag == "$interval":
            left, right, closed = payload
            return pd.Interval(decode_label(left), decode_label(right), closed=closed)
    except DecodeError:
        raise
    except (TypeError, ValueError) as exc:
        raise DecodeError(f"bad label {value!r}: {exc}") from None
    raise DecodeError(f"unknown label type {tag!r} in {value!r}")


# ---------------------------------------------------------------------- settings
def json_value(value: Any) -> Any:
    """A setting or attribute as JSON: labels tagged, numpy unwrapped, lists, arrays and dicts kept.

    Examples
    --------
    >>> json_value({"root": ("a", 1), "prior": np.array([0.25, 0.75]), "alpha": np.float64(1)})
    {'$dict': [['root', {'$tuple': ['a', 1]}], ['prior', {'$array': [0.25, 0.75]}], ['alpha', 1.0]]}
    >>> from_json_value(json_value([1, (2, [3.5])]))
    [1, (2, [3.5])]
    """
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, np.ndarray):
        return {"$array": [json_value(v) for v in value.tolist()]}
    if isinstance(value, dict):
        return {"$dict": [[json_value(k), json_value(v)] for k, v in value.items()]}
    if isinstance(value, list):
        return [json_value(v) for v in value]
    if isinstance(value, tuple):  # the same tag as a tuple label; its items may be settings
        return {"$tuple": [json_value(v) for v in value]}
    return encode_label(value)


def from_json_value(value: Any) -> Any:
    """Inverse of :func:`json_value`; raises :class:`DecodeError` for what it never writes."""
    if isinstance(value, list):
        return [from_json_value(v) for v in value]
    if isinstance(value, dict) and len(value) == 1:
        ((tag, payload),) = value.items()
        try:
            if tag == "$dict":
                return {from_json_value(k): from_json_value(v) for k, v in payload}
            if tag == "$array":
                return np.array(from_json_value(payload))
        except DecodeError:
            raise
        except (TypeError, ValueError) as exc:
            raise DecodeError(f"bad value {value!r}: {exc}") from None
    return _decode(value, from_json_value)


def python_value(value: Any) -> Any:
    """``value`` with numpy unwrapped: arrays become lists, numpy scalars Python ones.

    Tuples stay tuples (a tuple can be a variable name), so the result goes
    through :func:`json_value` and back unchanged; a learned model keeps its
    settings in this form, which compares with ``==`` (an array would not).

    Examples
    --------
    >>> python_value({"prior": np.array([0.5, 0.5]), "root": ("a", np.int64(1))})
    {'prior': [0.5, 0.5], 'root': ('a', 1)}
    >>> value = python_value(("a", [np.float64(0.5)]))
    >>> from_json_value(json_value(value)) == value
    True
    """
    if isinstance(value, np.ndarray):
        return [python_value(v) for v in value.tolist()]
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, list):
        return [python_value(v) for v in value]
    if isinstance(value, tuple):
        return tuple(python_value(v) for v in value)
    if isinstance(value, dict):
        return {python_value(k): python_value(v) for k, v in value.items()}
    return value


# ---------------------------------------------------------------------- dtypes
def encode_dtype(dtype: Any) -> Any:
    """A column's pandas dtype as JSON: its name, or a Categorical's categories and order.

    Examples
    --------
    >>> encode_dtype(np.dtype("int64"))
    'int64'
    >>> d = pd.CategoricalDtype([3, 1, 2], ordered=True)
    >>> encode_dtype(d)
    {'category': [3, 1, 2], 'categories_dtype': 'int64', 'ordered': True}
    >>> decode_dtype(encode_dtype(d)) == d
    True
    """
    if dtype is None:
        return None
    if isinstance(dtype, pd.CategoricalDtype):
        return {
            "category": [encode_label(c) for c in dtype.categories],
            "categories_dtype": str(dtype.categories.dtype),
            "ordered": bool(dtype.ordered),
        }
    return str(dtype)


#: numpy dtype kinds a saved column may have: bool, integers, floats, complex, dates,
#: durations, object; never fixed-width bytes/text/void ("S2000000000" would allocate GiB)
ALLOWED_NUMPY_KINDS = "biufcmMO"
#: pandas extension dtypes a saved column may have (the nullable and string dtypes)
ALLOWED_EXTENSION_DTYPES = (
    "StringDtype",
    "Int8Dtype",
    "Int16Dtype",
    "Int32Dtype",
    "Int64Dtype",
    "UInt8Dtype",
    "UInt16Dtype",
    "UInt32Dtype",
    "UInt64Dtype",
    "Float32Dtype",
    "Float64Dtype",
    "BooleanDtype",
    "DatetimeTZDtype",
    "PeriodDtype",
)


def _allowed_dtype(text: Any) -> Any:
    """``pandas_dtype(text)`` for a name the writer emits; else :class:`DecodeError`."""
    if not isinstance(text, str) or len(text) > 64:
        raise DecodeError(f"unknown dtype {text!r}")
    dtype = pd.api.types.pandas_dtype(text)
    if isinstance(dtype, np.dtype):
        ok = (dtype.kind in ALLOWED_NUMPY_KINDS and dtype.itemsize <= 16) or (
            dtype.kind == "U" and dtype.itemsize == 0
        )  # "str": pandas' name for text columns
    else:
        ok = type(dtype).__name__ in ALLOWED_EXTENSION_DTYPES
    if not ok:
        raise DecodeError(
            f"dtype {text!r} is not one treelearn writes (allowed: bool, integer, "
            f"float, date and object dtypes, pandas nullable and string dtypes, "
            f"categoricals of these)"
        )
    return dtype


def decode_dtype(value: Any) -> Any:
    """Inverse of :func:`encode_dtype`; raises :class:`DecodeError` for an unknown dtype,
    or one the writer never emits (see :data:`ALLOWED_NUMPY_KINDS`).

    >>> decode_dtype("S2000000000")
    Traceback (most recent call last):
    ...
    treelearn._base.jsonvalues.DecodeError: dtype 'S2000000000' is not one treelearn writes ...
    """
    if value is None:
        return None
    try:
        if isinstance(value, dict):
            categories = [decode_label(c) for c in value["category"]]
            inner = value.get("categories_dtype")
            index = pd.Index(
                categories,
                dtype=None if inner is None else _allowed_dtype(inner),
                tupleize_cols=False,
            )
            return pd.CategoricalDtype(index, ordered=bool(value.get("ordered", False)))
        return _allowed_dtype(value)
    except DecodeError:
        raise
    except (TypeError, ValueError, KeyError) as exc:
        raise DecodeError(f"unknown dtype {value!r} ({exc})") from None
