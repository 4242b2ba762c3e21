"""Where the app reads and writes files on the server, and who can reach it.

A page never opens a path the browser sends. The Reports page's batch databases — the ones it
creates, opens and receives as uploads — live in one folder, the *batch folder*: the
project's ``batches/`` unless the server was started with ``REGRET_LAB_BATCHES`` set to
another. A name typed on a page is read relative to that folder (:func:`in_batch_folder`);
an absolute path, a ``..``, a symbolic link leading out or another kind of file is refused
with one message that never says whether anything exists outside the folder. (A batch's
saved solves are confined again, to the database's own ``<db>.solves/`` folder:
:func:`solver.batch.store.read_solve_file`.)

The server binds to loopback unless ``REGRET_LAB_ADDRESS`` says otherwise; bound beyond it,
anyone who reaches the port can use every page (:func:`exposed`; docs/app.md, "Serving it
to others").
"""

from __future__ import annotations

import ipaddress
import os
from pathlib import Path, PurePosixPath

from solver.batch.spec import BatchError

ROOT = Path(__file__).absolute().parent.parent
BATCHES_ENV = "REGRET_LAB_BATCHES"
DB_SUFFIXES = (".db", ".sqlite")
MAX_NAME = 200  # characters of a typed name
MAX_PART_BYTES = 255  # bytes of one name between slashes (the file system's own limit)
MAX_TRIES = 1_000  # names tried for a new file (<stem>-2, -3, …) before giving up
OUTSIDE = (
    "name a database inside the batch folder, relative to it (such as 'my-spot.db'); "
    "this page opens nothing outside it"
)


def batch_folder() -> Path:
    """The folder the app keeps batch databases in (resolved; made if missing)."""
    chosen = os.environ.get(BATCHES_ENV, "").strip()
    folder = Path(chosen).expanduser() if chosen else ROOT / "batches"
    folder = folder.resolve()
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def folder_label() -> str:
    """How pages name the batch folder: ``batches/`` (the project's) or "the batch folder
    this server was started with" — never the server's absolute path."""
    return (
        "the batch folder this server was started with"
        if os.environ.get(BATCHES_ENV, "").strip()
        else "batches/"
    )


def in_batch_folder(name: str, field: str = "Database file") -> Path:
    """The database file ``name`` (typed on a page) names inside :func:`batch_folder`.

    Raises :class:`BatchError` (``field``) for an empty or overlong name, an absolute path,
    ``~``, ``..``, a backslash, a name not ending in ``.db``/``.sqlite``, or a path that leads
    out of the folder once symbolic links are followed — the same message whatever exists
    there."""
    text = name.strip()
    if not text:
        raise BatchError(field, f"give a file name; databases live in {folder_label()}")
    if len(text) > MAX_NAME or "\x00" in text or "\\" in text or text.startswith("~"):
        raise BatchError(field, OUTSIDE)
    rel = PurePosixPath(text)
    if rel.is_absolute() or ".." in rel.parts:
        raise BatchError(field, OUTSIDE)
    if rel.suffix.lower() not in DB_SUFFIXES:
        raise BatchError(field, "a batch database's name ends in .db or .sqlite")
    if any(len(part.encode("utf-8", "surrogatepass")) > MAX_PART_BYTES for part in rel.parts):
        raise BatchError(field, f"a name longer than {MAX_PART_BYTES} bytes between slashes")
    folder = batch_folder()
    try:
        full = (folder / rel).resolve()  # symbolic links followed
    except (OSError, RuntimeError):  # a loop of symbolic links: the same words as outside
        raise BatchError(field, OUTSIDE) from None
    if not full.is_relative_to(folder) or full == folder:
        raise BatchError(field, OUTSIDE)
    return full


def write_new(stem: str, suffix: str, data: bytes, field: str = "upload") -> Path:
    """Write ``data`` to a new file in :func:`batch_folder`: ``<stem><suffix>``, or
    ``<stem>-2<suffix>``, ``-3``, … when a file (or a symbolic link) has the name — created
    exclusively, so no file is ever replaced (two uploads of one name, a database a batch
    is writing). ``stem`` is a safe name (:func:`app.features.batch_run.slug`). Returns the path;
    :class:`BatchError` (``field``) when none is free or the folder cannot be written."""
    folder = batch_folder()
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    for n in range(1, MAX_TRIES + 1):
        path = folder / f"{stem}{'' if n == 1 else f'-{n}'}{suffix}"
        try:
            fd = os.open(path, flags, 0o644)
        except FileExistsError:
            continue
        except OSError as exc:
            raise BatchError(field, f"cannot write to {folder_label()} ({exc.strerror})") from None
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
        except OSError as exc:
            path.unlink(missing_ok=True)
            raise BatchError(field, f"cannot write to {folder_label()} ({exc.strerror})") from None
        return path
    raise BatchError(field, f"{MAX_TRIES} files named {stem}… already: remove some first")


def relative_name(path: str | Path) -> str:
    """``path`` (inside the batch folder) as pages show it: relative to the folder."""
    p = Path(path)
    try:
        return p.resolve().relative_to(batch_folder()).as_posix()
    except (ValueError, OSError, RuntimeError):  # (RuntimeError: a loop of symbolic links)
        return p.name


def without_paths(text: str) -> str:
    """``text`` (a message about a database) with the batch folder's absolute path left out:
    names relative to it, as the pages show them."""
    folder = str(batch_folder())
    return text.replace(folder + "/", "").replace(folder, folder_label())


def is_loopback(address: str | None) -> bool:
    """Whether a server bound to ``address`` answers this machine only. Streamlit binds to
    every interface when no address is set."""
    if not address:
        return False
    host = address.strip().strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def exposed() -> bool:
    """Whether this Streamlit server is bound beyond loopback (``server.address``)."""
    import streamlit as st

    return not is_loopback(st.get_option("server.address"))
