"""Reading a whole file a user names, checked before a byte is read: only a regular file
(never a FIFO, which would block the reader for ever, a device such as ``/dev/zero``, which
never ends, or a folder), and only one within the caller's size cap (checked on the open
file, so what is checked is what is read)."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

GROWN_CHUNK = 1 << 20
"""Bytes read at a time past a file's size when it grew while being read."""


class ReadError(ValueError):
    """A file refused before it was read; the message says why (not naming the path: the
    caller does)."""


def open_regular(path: str | Path, *, dir_fd: int | None = None, follow: bool = True) -> int:
    """A read-only descriptor of ``path`` once it is known to be a regular file (opened
    without blocking, so a FIFO answers at once; ``follow`` False: a symbolic link is
    refused as itself). :class:`ReadError` otherwise; the caller closes the descriptor."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    if not follow:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags, dir_fd=dir_fd)
    except FileNotFoundError:
        raise ReadError("no such file") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise ReadError(
                "is a symbolic link (not followed)" if not follow else "is a loop of symbolic links"
            ) from None
        raise ReadError(f"cannot be read ({exc.strerror or type(exc).__name__})") from None
    except ValueError:  # a NUL in the name
        raise ReadError("is not a file name") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        kind = "a folder" if stat.S_ISDIR(mode) else "a pipe" if stat.S_ISFIFO(mode) else (
            "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a file")  # fmt: skip
        raise ReadError(f"is {kind}, not a regular file")
    return fd


def read_fd(fd: int, max_bytes: int) -> bytes:
    """All of the open regular file ``fd`` (closed after), refused past ``max_bytes`` from
    its size before reading (and again if it grew while being read)."""
    with os.fdopen(fd, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size > max_bytes:
            raise ReadError(f"is larger than {max_bytes:,} bytes ({size:,})")
        # as many bytes as the file has, then a little at a time if it grew (a read of the
        # cap would reserve the cap)
        parts = [f.read(size + 1)]
        total = len(parts[0])
        while total > size and total <= max_bytes and parts[-1]:
            parts.append(f.read(min(GROWN_CHUNK, max_bytes + 1 - total)))
            total += len(parts[-1])
    if total > max_bytes:
        raise ReadError(f"is larger than {max_bytes:,} bytes (it grew while being read)")
    return parts[0] if len(parts) == 1 else b"".join(parts)


def read_regular(path: str | Path, max_bytes: int, *, follow: bool = True) -> bytes:
    """The bytes of the regular file ``path`` (:func:`open_regular`, :func:`read_fd`)."""
    return read_fd(open_regular(path, follow=follow), max_bytes)
