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

import os

from .errors import ResourceLimitError, TreelearnError

__all__ = [
    "BIF_STATES_LIMIT",
    "FILE_SIZE_LIMIT",
    "MEMORY_LIMIT",
    "READ_MEMORY_ENV",
    "READ_MEMORY_LIMIT",
    "available_memory",
    "check_file_size",
    "check_memory",
    "check_states",
    "gib",
    "read_memory_limit",
    "size_text",
]

#: Largest single array treelearn allocates for a request, in bytes (default 4 GiB).
MEMORY_LIMIT = 4 * 2**30
#: Largest model file read (treelearn JSON, BIF, XMLBIF, UAI), in bytes (default 1 GiB):
#: a file is read whole, and its parse takes several times its size.
FILE_SIZE_LIMIT = 2**30
#: Most memory a data file read whole may take, in bytes; ``None`` (default): the memory the
#: machine has available when the file is read (:func:`available_memory`), unless the
#: environment variable :data:`READ_MEMORY_ENV` gives a number of bytes.
READ_MEMORY_LIMIT: int | None = None
#: The environment variable giving :data:`READ_MEMORY_LIMIT` to the command line (bytes, or
#: with a K/M/G/T suffix in powers of 1024: ``TREELEARN_READ_MEMORY=8G``).
READ_MEMORY_ENV = "TREELEARN_READ_MEMORY"
#: Most states one variable of a BIF file may list (default 20,000): pgmpy's BIF parser
#: takes about a second per 5,000 states, so a file listing 300,000 would take a minute.
BIF_STATES_LIMIT = 20_000


def size_text(n_bytes: float) -> str:
    """``n_bytes`` in GiB from 1 GiB, in MiB from 1 MiB, else in KiB, for messages.

    >>> size_text(3 * 2**30), size_text(5 * 2**20), size_text(18354)
    ('3.0 GiB', '5.0 MiB', '17.9 KiB')
    """
    if n_bytes >= 2**30:
        return gib(n_bytes)
    return f"{n_bytes / 2**20:.1f} MiB" if n_bytes >= 2**20 else f"{n_bytes / 2**10:.1f} KiB"


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


def _meminfo_available() -> int | None:
    """``MemAvailable`` of ``/proc/meminfo`` in bytes (Linux), else free pages by sysconf."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


def _cgroup_available() -> int | None:
    """What the process's cgroup (v2, else v1) lets it allocate more: its limit less its use
    (``None`` without a limit)."""
    pairs = (
        ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
        (
            "/sys/fs/cgroup/memory/memory.limit_in_bytes",
            "/sys/fs/cgroup/memory/memory.usage_in_bytes",
        ),
    )
    for limit_file, usage_file in pairs:
        try:
            with open(limit_file) as f:
                limit = f.read().strip()
            with open(usage_file) as f:
                usage = int(f.read().strip())
        except (OSError, ValueError):
            continue
        if limit == "max" or int(limit) >= 2**60:  # v1 writes "no limit" as a huge number
            return None
        return max(int(limit) - usage, 0)
    return None


def available_memory() -> tuple[int | None, str]:
    """``(bytes, where from)``: the memory this process can take now, the least of the
    machine's available memory (``MemAvailable``) and its cgroup's remaining limit
    (``None`` where neither is known).

    >>> n, source = available_memory()
    >>> n is None or n >= 0
    True
    """
    found = [
        (n, what)
        for n, what in (
            (_meminfo_available(), "available on this machine"),
            (_cgroup_available(), "left under this process's cgroup memory limit"),
        )
        if n is not None
    ]
    return min(found) if found else (None, "unknown")


def _bytes_of(text: str) -> int:
    """``"8G"`` -> 8 * 2**30; a number of bytes, with a K/M/G/T suffix in powers of 1024.

    >>> _bytes_of("8G"), _bytes_of("1500")
    (8589934592, 1500)
    """
    units = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}
    cleaned = text.strip().upper().removesuffix("B").removesuffix("I")
    scale = units.get(cleaned[-1:], 1)
    number = cleaned[:-1] if cleaned[-1:] in units else cleaned
    try:
        value = float(number) * scale
    except ValueError:
        raise TreelearnError(
            f"{READ_MEMORY_ENV}={text!r} is not a number of bytes; give one such as "
            f"{READ_MEMORY_ENV}=8G (or 8589934592), or unset it"
        ) from None
    if not value >= 0:
        raise TreelearnError(f"{READ_MEMORY_ENV}={text!r} must be at least 0 bytes")
    return int(value)


def read_memory_limit() -> tuple[int | None, str]:
    """``(bytes, where from)``: the most memory a data file read whole may take:
    :data:`READ_MEMORY_LIMIT` if set, else the environment variable
    :data:`READ_MEMORY_ENV`, else :func:`available_memory` (``None``: no check).

    >>> import treelearn.limits as limits
    >>> limits.READ_MEMORY_LIMIT = 2**30
    >>> read_memory_limit()
    (1073741824, 'allowed by treelearn.limits.READ_MEMORY_LIMIT')
    >>> limits.READ_MEMORY_LIMIT = None
    """
    if READ_MEMORY_LIMIT is not None:
        return int(READ_MEMORY_LIMIT), "allowed by treelearn.limits.READ_MEMORY_LIMIT"
    given = os.environ.get(READ_MEMORY_ENV)
    if given:
        return _bytes_of(given), f"allowed by the environment variable {READ_MEMORY_ENV}"
    return available_memory()
