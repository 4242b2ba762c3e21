"""The saved solves a batch database names: read only from its own ``<db>.solves/`` folder
(no symbolic link on the way, only a regular file, size-checked before reading), and used
only when the game a save holds is the batch's spot on the row's flop."""

from __future__ import annotations

import errno
import json
import os
from dataclasses import replace
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from solver.batch.spec import BatchError, BatchSpec
from solver.files.safe_read import ReadError, open_regular, read_fd
from solver.quoting import brief

if TYPE_CHECKING:
    from solver.files.export import LoadedSolve

# A saved solve's size cap when a database names it (load_solve's own, checked before reading)
MAX_SOLVE_FILE_BYTES = 2_000_000_000


def solve_dir_of(db: Path) -> Path:
    """``<db name>.solves/`` beside the database: the only folder its solve files may name."""
    return db.with_name(db.name + ".solves")


def read_solve_file(db: Path, solve_file: str, max_bytes: int = MAX_SOLVE_FILE_BYTES) -> bytes:
    """The bytes of the saved solve a database row names (``solve_file``, relative to the
    database's folder, as :mod:`solver.batch.driver` writes it: ``<db>.solves/<flop>.npz``),
    read only from inside the database's own ``<db>.solves/`` folder: an absolute path, a
    ``..`` step, a path outside that folder, a symbolic link anywhere below the database's
    folder (the ``.solves`` folder itself included: each step is opened without following
    links), anything but a regular file (a FIFO is opened without blocking and refused) or a
    file over ``max_bytes`` (checked before reading) is refused with :class:`BatchError`
    (field ``solve_file``). The message never says whether a path outside that folder
    exists."""
    name = str(solve_file)
    shown = repr(name[:80])
    outside = BatchError("solve_file", f"{shown} is not a file in the batch's .solves folder")
    rel = PurePosixPath(name)
    if not name or "\0" in name or rel.is_absolute() or ".." in rel.parts:
        raise outside
    parts = rel.parts
    if len(parts) < 2 or parts[0] != solve_dir_of(db).name:
        raise outside
    no_dir = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
    fds: list[int] = []
    try:
        try:  # the database's own folder (as given), then each step below it, not followed
            fds.append(os.open(db.parent, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)))
            for step in parts[:-1]:
                fds.append(os.open(step, no_dir, dir_fd=fds[-1]))
        except OSError as exc:
            if exc.errno == errno.ENOENT:
                raise BatchError("solve_file", f"{shown}: no such saved solve") from None
            if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                at = len(fds)  # 0: the database's folder, 1: its .solves folder, …
                what = ["the database's folder", "the batch's .solves folder"][at] if at < 2 else (
                    f"folder {brief(parts[at - 1])}")  # fmt: skip
                raise BatchError(
                    "solve_file",
                    f"{shown}: {what} is a symbolic link or not a folder (saved "
                    "solves are read only from the database's own .solves folder)",
                ) from None
            raise BatchError("solve_file", f"{shown}: cannot be read ({exc.strerror})") from None
        try:
            fd = open_regular(parts[-1], dir_fd=fds[-1], follow=False)
            return read_fd(fd, max_bytes)
        except ReadError as exc:
            reason = "no such saved solve" if str(exc) == "no such file" else str(exc)
            raise BatchError("solve_file", f"{shown}: {reason}") from None
    finally:
        for fd in fds:
            os.close(fd)


def _saved_game(data: bytes) -> object:
    """The ``game`` entry of a save's metadata (None when the metadata cannot be read:
    :func:`~solver.files.export.load_solve` then says why)."""
    from solver.files.export import MAX_META_BYTES
    from solver.files.safe_npz import NpzError, NpzReader

    try:
        with NpzReader(data) as npz:
            text = npz.read("meta", shape=(), kind="U", max_bytes=MAX_META_BYTES)
        meta = json.loads(str(text.item()))
    except (NpzError, ValueError, RecursionError):
        return None
    return meta.get("game") if isinstance(meta, dict) else None


def check_saved_game(data: bytes, flop: str, spec: BatchSpec) -> None:
    """:class:`BatchError` (field ``solve_file``) unless the save in ``data`` holds the
    batch's spot on ``flop`` (its template with that board: same game kind, board and every
    field of the spot but its name) — checked from the metadata, before any game is built."""
    from solver.games.holdem import HoldemSpec
    from solver.poker.cards import CardError, parse_board

    game = _saved_game(data)
    if game is None:
        return  # load_solve refuses it, saying why
    where = f"the saved solve of flop {flop}"
    if not isinstance(game, dict):
        return  # load_solve refuses it
    kind = game.get("kind")
    if kind != "holdem":
        named = game.get("name")
        held = f"{brief(kind)} game {brief(named)}" if named is not None else brief(kind)
        raise BatchError("solve_file", f"{where} holds a {held}, not a hold'em spot of the batch")
    data_spec = game.get("spec")
    if not isinstance(data_spec, dict):
        return  # load_solve refuses it
    board = "".join(str(data_spec.get("board", "")).split())
    try:
        same_board = board == flop or set(parse_board(board)) == set(parse_board(flop))
    except CardError:
        same_board = False
    if not same_board:
        raise BatchError(
            "solve_file", f"{where} holds a solve of board {brief(board)}, not {flop} (a "
            "file of another flop)"
        )  # fmt: skip
    try:
        saved = replace(spec, template=HoldemSpec(**data_spec)).identity()["template"]
    except (TypeError, ValueError, RecursionError):  # an unknown field: load_solve names it
        return
    ours: dict[str, Any] = spec.identity()["template"]
    differ = sorted(k for k in ours.keys() | saved.keys() if ours.get(k) != saved.get(k))
    if differ:
        raise BatchError(
            "solve_file", f"{where} holds another spot than the batch's (it differs in "
            f"{', '.join(differ[:8])})"
        )  # fmt: skip


def load_flop_solve(db: Path, flop: str, solve_file: str, spec: BatchSpec) -> LoadedSolve:
    """The saved solve of ``flop`` (the row's ``solve_file``) of the batch ``spec`` in the
    database ``db``: read under :func:`read_solve_file`'s rules, its game checked against
    the batch's spot on the flop (:func:`check_saved_game`), then loaded. Every refusal is
    one :class:`BatchError` (field ``solve_file``) naming the flop."""
    return load_flop_save(read_solve_file(db, solve_file), flop, spec)


def load_flop_save(data: bytes, flop: str, spec: BatchSpec) -> LoadedSolve:
    """The save ``data`` (read by :func:`read_solve_file`) loaded once its game is the batch
    ``spec``'s spot on ``flop`` (:func:`check_saved_game`); :class:`BatchError` (field
    ``solve_file``) naming the flop for anything else."""
    from solver.files.export import ExportError, load_solve

    check_saved_game(data, flop, spec)
    try:
        return load_solve(data)
    except ExportError as exc:
        raise BatchError("solve_file", f"the saved solve of flop {flop}: {exc}") from None


__all__ = [
    "MAX_SOLVE_FILE_BYTES", "check_saved_game", "load_flop_save", "load_flop_solve",
    "read_solve_file", "solve_dir_of",
]  # fmt: skip
