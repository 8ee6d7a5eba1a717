"""Resource limits, checked before allocating (never by catching ``MemoryError``).

A request whose largest array would exceed :data:`MEMORY_LIMIT` bytes raises
:class:`~treelearn.ResourceLimitError` saying how much it would need and what to
do instead. The limit is read at each check: raise it for a large machine with
``treelearn.limits.MEMORY_LIMIT = 32 * 2**30``.

>>> check_memory(10, "a test array", "nothing to do")
>>> check_memory(MEMORY_LIMIT + 1, "a huge array", "ask for less")
Traceback (most recent call last):
...
treelearn.ResourceLimitError: a huge array would need 4.0 GiB, more than the limit of 4.0 GiB (treelearn.limits.MEMORY_LIMIT); ask for less
"""

from __future__ import annotations

from .errors import ResourceLimitError

__all__ = ["MEMORY_LIMIT", "check_memory", "gib"]

#: Largest single array treelearn allocates for a request, in bytes (default 4 GiB).
MEMORY_LIMIT = 4 * 2**30


def gib(n_bytes: float) -> str:
    """``n_bytes`` in GiB, for messages.

    >>> gib(3 * 2**30)
    '3.0 GiB'
    """
    return f"{n_bytes / 2**30:.1f} GiB"


def check_memory(n_bytes: float, what: str, fix: str) -> None:
    """Raise :class:`ResourceLimitError` when ``n_bytes`` exceeds :data:`MEMORY_LIMIT`."""
    if n_bytes > MEMORY_LIMIT:
        raise ResourceLimitError(
            f"{what} would need {gib(n_bytes)}, more than the limit of {gib(MEMORY_LIMIT)} "
            f"(treelearn.limits.MEMORY_LIMIT); {fix}"
        )
