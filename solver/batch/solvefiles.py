"""The saved solves a batch database names: read only from its own ``<db>.solves/`` folder,
size-checked before reading."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from solver.batch.spec import BatchError

# A saved solve's size cap when a database names it (load_solve's own, checked before reading)
MAX_SOLVE_FILE_BYTES = 2_000_000_000


def solve_dir_of(db: Path) -> Path:
    """``<db name>.solves/`` beside the database: the only folder its solve files may name."""
    return db.with_name(db.name + ".solves")


def read_solve_file(db: Path, solve_file: str, max_bytes: int = MAX_SOLVE_FILE_BYTES) -> bytes:
    """The bytes of the saved solve a database row names (``solve_file``, relative to the
    database's folder, as :mod:`solver.batch.driver` writes it), read only from inside the
    database's own ``<db>.solves/`` folder: an absolute path, a ``..`` step, a symlink that
    leads out, anything but a regular file or a file over ``max_bytes`` (checked before
    reading) is refused with :class:`BatchError` (field ``solve_file``). The message never
    says whether a path outside that folder exists."""
    name = str(solve_file)
    rel = Path(name)
    if not name or "\0" in name or rel.is_absolute() or ".." in rel.parts:
        raise BatchError("solve_file", f"{name[:80]!r} is not a file in the batch's .solves folder")
    root = solve_dir_of(db)
    try:  # where it leads first, existence after: nothing said about outside the folder
        base = root.resolve()
        target = (db.parent / rel).resolve()
    except (OSError, RuntimeError):
        raise BatchError("solve_file", f"{name[:80]!r}: no such saved solve") from None
    if base not in target.parents:
        raise BatchError("solve_file", f"{name[:80]!r} is not a file in the batch's .solves folder")
    if not target.exists():
        raise BatchError("solve_file", f"{name[:80]!r}: no such saved solve")
    try:
        fd = os.open(target, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        raise BatchError("solve_file", f"{name[:80]!r}: cannot be read") from None
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(f.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise BatchError("solve_file", f"{name[:80]!r} is not a regular file")
        if info.st_size > max_bytes:
            raise BatchError("solve_file", f"{name[:80]!r} is larger than {max_bytes:,} bytes")
        data = f.read(max_bytes + 1)
    if len(data) > max_bytes:  # grew while being read
        raise BatchError("solve_file", f"{name[:80]!r} is larger than {max_bytes:,} bytes")
    return data
