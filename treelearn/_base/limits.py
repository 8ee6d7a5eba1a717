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

__all__ = [
    "BIF_STATES_LIMIT",
    "FILE_SIZE_LIMIT",
    "MEMORY_LIMIT",
    "check_file_size",
    "check_memory",
    "check_states",
    "gib",
]

#: Largest single array treelearn allocates for a request, in bytes (default 4 GiB).
MEMORY_LIMIT = 4 * 2**30
#: Largest model file read (treelearn JSON, BIF, XMLBIF, UAI), in bytes (default 1 GiB):
#: a file is read whole, and its parse takes several times its size.
FILE_SIZE_LIMIT = 2**30
#: Most states one variable of a BIF file may list (default 20,000): pgmpy's BIF parser
#: takes about a second per 5,000 states, so a file listing 300,000 would take a minute.
BIF_STATES_LIMIT = 20_000


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


def check_file_size(n_bytes: int, path: str) -> None:
    """Raise :class:`ResourceLimitError` when a file of ``n_bytes`` exceeds :data:`FILE_SIZE_LIMIT`.

    >>> check_file_size(FILE_SIZE_LIMIT + 1, "big.json")
    Traceback (most recent call last):
    ...
    treelearn.ResourceLimitError: 'big.json' holds 1.0 GiB, more than the limit of 1.0 GiB (treelearn.limits.FILE_SIZE_LIMIT) for a model file; raise the limit if the file is what you meant (treelearn.limits.FILE_SIZE_LIMIT = 4 * 2**30)
    """
    if n_bytes > FILE_SIZE_LIMIT:
        raise ResourceLimitError(
            f"{path!r} holds {gib(n_bytes)}, more than the limit of {gib(FILE_SIZE_LIMIT)} "
            f"(treelearn.limits.FILE_SIZE_LIMIT) for a model file; raise the limit if the "
            f"file is what you meant (treelearn.limits.FILE_SIZE_LIMIT = 4 * 2**30)"
        )


def check_states(n_states: int, variable: object, what: str) -> None:
    """Raise :class:`ResourceLimitError` when a BIF file's variable lists more than
    :data:`BIF_STATES_LIMIT` states.

    >>> check_states(10, "a", "the BIF file")
    """
    if n_states > BIF_STATES_LIMIT:
        raise ResourceLimitError(
            f"{what}: variable {variable!r} lists {n_states} states, more than the limit of "
            f"{BIF_STATES_LIMIT} (treelearn.limits.BIF_STATES_LIMIT: pgmpy's BIF parser would "
            f"take minutes); raise the limit if the file is what you meant, or save the model "
            f"as XMLBIF or with tl.save"
        )
