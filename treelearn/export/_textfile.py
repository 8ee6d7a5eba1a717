"""Model files as text on disk: a path checked (``file_path``), text written atomically
(:func:`write_text_atomic`: a fresh temporary file renamed over the target, never a planted
link) and read bounded (:func:`read_text`: regular files within
:data:`treelearn.limits.FILE_SIZE_LIMIT`), and a reader's path-or-text argument
(:func:`path_or_text`). Every exchange format (JSON, BIF, XMLBIF, UAI) reads and writes
through these, so none of them imports another format's module."""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from typing import Any

from .._base import limits
from .._base.errors import CorruptModelFileError, InputTypeError, ModelFileError
from .._base.limits import check_file_size
from .._base.validation import file_path

__all__ = ["path_or_text", "read_text", "write_text_atomic"]


# ---------------------------------------------------------------------- files


def _create_temporary(folder: str, name: str) -> tuple[int, str]:
    """A new file of a unique name beside ``name`` in ``folder``, opened for writing.

    ``O_CREAT | O_EXCL`` (what ``tempfile.mkstemp`` does) never opens an existing file
    or follows a symbolic link; unlike ``mkstemp`` the mode is 0o666, so the umask
    gives the new file the permissions ``open(path, "w")`` would."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        tmp = os.path.join(folder, f".{name}.{secrets.token_hex(8)}.tmp")
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:  # 2**64 names: only a hostile folder gets here twice
            continue
    raise ModelFileError(f"cannot create a temporary file in {folder!r}: every name tried exists")


def write_text_atomic(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename: never a half-written file.

    The temporary file is created anew, with a unique name, in ``path``'s directory
    (``O_CREAT | O_EXCL``, as ``tempfile.mkstemp``: a file or symbolic link planted
    under a predictable name is never opened, let alone overwritten), written,
    flushed to disk (``fsync``) and renamed over ``path`` (``os.replace``, atomic):
    a reader sees the old file or the new one, whole, and several writers to one
    path leave one complete file. An existing file keeps its permissions.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "m.json")
    >>> write_text_atomic(path, "{}")
    >>> read_text(path)
    '{}'
    """
    path = file_path(path)
    if os.path.isdir(path):  # checked first: no stray temporary file left behind
        raise ModelFileError(
            f"{path!r} is a directory: give a file name such as "
            f"{os.path.join(path, 'model.json')!r}"
        )
    folder, name = os.path.split(os.path.abspath(path))
    try:
        mode = os.stat(path).st_mode & 0o7777  # a file replaced keeps its permissions
    except OSError:
        mode = None
    fd, tmp = _create_temporary(folder, name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(tmp)
        raise


def read_text(path: str | os.PathLike, what: str = "model file") -> str:
    """A model file's text; a byte order mark (an editor's re-save) is dropped.

    The read is bounded: the file is opened without blocking (``O_NONBLOCK``: a FIFO
    with no writer never hangs), refused unless it is a regular file (a FIFO, a device
    such as ``/dev/zero``, a socket), and refused above
    :data:`treelearn.limits.FILE_SIZE_LIMIT` bytes before anything is read; at most
    that many bytes are ever read, even from a file that grows meanwhile.

    Raises :class:`FileNotFoundError` for no such file,
    :class:`~treelearn.ModelFileError` for a directory or a file that is not regular,
    :class:`~treelearn.ResourceLimitError` for a file over the limit and
    :class:`~treelearn.CorruptModelFileError` for a file that is not text.

    >>> read_text("/dev/zero")
    Traceback (most recent call last):
    ...
    treelearn.ModelFileError: '/dev/zero' is not a regular file (a device, a FIFO or a socket), so it is no model file; give the path of a file
    """
    path = file_path(path, what)
    if not os.path.exists(path):
        raise FileNotFoundError(f"no such {what}: {path!r}")
    if os.path.isdir(path):
        raise ModelFileError(f"{path!r} is a directory, not a {what}")
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError as exc:
        raise ModelFileError(f"{path!r} cannot be opened ({exc.strerror})") from None
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(f.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise ModelFileError(
                f"{path!r} is not a regular file (a device, a FIFO or a socket), so it is no "
                f"{what}; give the path of a file"
            )
        check_file_size(info.st_size, path)
        data = f.read(limits.FILE_SIZE_LIMIT + 1)
    check_file_size(len(data), path)  # it grew while being read
    try:  # newlines read as text mode reads them: "\r\n" and "\r" are "\n"
        return data.decode("utf-8-sig").replace("\r\n", "\n").replace("\r", "\n")
    except UnicodeDecodeError:
        raise CorruptModelFileError(f"{path!r} is not a text file (not UTF-8)") from None


def path_or_text(path: Any, text: Any, what: str) -> str:
    """The text to parse: the file at ``path`` (:func:`read_text`, bounded) or ``text``
    itself, whichever is given, never guessed from a string's content.

    >>> path_or_text(None, "BAYES 1 2 1 1 0 2 0.5 0.5", "UAI file")[:5]
    'BAYES'
    >>> path_or_text("m.uai", "BAYES", "UAI file")
    Traceback (most recent call last):
    ...
    treelearn.InputTypeError: give the UAI file as a path or as text=..., not both
    """
    if (path is None) == (text is None):
        raise InputTypeError(
            f"give the {what} as a path or as text=..., not both"
            if path is not None
            else f"give the {what} as a path (read_...(path)) or its content as text=..."
        )
    if text is None:
        return read_text(path, what)
    if not isinstance(text, str):
        raise InputTypeError(
            f"text= must be the {what}'s content as a str, not {type(text).__name__}"
        )
    if len(text) > limits.FILE_SIZE_LIMIT:
        check_file_size(len(text), "text=")
    return text
