"""``solve --game kuhn3|leduc3 --locks FILE.json`` (and ``solve --players 3 --board …``, a
three-way river or turn spot): locks for any player of a three-player game, in the heads-up
file's format (``{"LINE": MIX, ...}``; docs/locking.md, :mod:`solver.games.multi_locks`,
:mod:`solver.games.holdem3_locks`).

The file is read safely (a regular file only — never a FIFO or a device — within
:data:`~solver.cli.args.MAX_JSON_FILE_BYTES`, checked before a byte is read:
:mod:`solver.files.safe_read`), parsed, and resolved against the game before any iteration:
a bad file or lock is one ``error: --locks: …`` line naming the file or the lock's line
and hand, exit code 2, nothing solved. The final JSON line repeats the locks applied
(``locks``) and says per player which lines it has locked hands at (``locked``).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from solver.cfr.multi_solve import MultiSolver, lock_multi_engine
from solver.cli.args import FILE_SHAPES, MAX_JSON_FILE_BYTES, UsageError
from solver.files.safe_read import ReadError, read_regular
from solver.games.multi_locks import MultiLocks
from solver.quoting import shown_path

__all__ = ["FLAG", "apply_locks", "locks_fields", "locks_text", "read_locks"]

FLAG = "--locks"


def read_locks(path: str) -> dict[str, Any]:
    """The JSON object in the locks file ``path``; :class:`UsageError` naming ``--locks``
    and the file when it cannot be read, is no regular file, is too large, is not UTF-8
    JSON or holds no object."""
    shown = shown_path(path)
    try:
        raw = read_regular(path, MAX_JSON_FILE_BYTES)
    except ReadError as exc:
        raise UsageError(f"{FLAG}: {shown} {exc}") from None
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise UsageError(f"{FLAG}: {shown} is not UTF-8 text") from None
    except (ValueError, RecursionError) as exc:  # JSONDecodeError is a ValueError
        raise UsageError(f"{FLAG}: {shown} is not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise UsageError(f"{FLAG}: {shown} must hold {FILE_SHAPES['locks']}")
    return data


def apply_locks(args: argparse.Namespace, engine: MultiSolver) -> MultiLocks | None:
    """Lock ``engine`` with the file ``args.locks`` names (None: no locks); the locks
    applied (without ``--json``, printed as :func:`locks_text`'s line). A bad file or lock:
    :class:`UsageError` naming ``--locks``."""
    path = getattr(args, "locks", None)
    if path is None:
        return None
    spec = read_locks(str(path))
    try:
        locks = lock_multi_engine(engine, spec)  # (a river or turn spot's: its lines, combos)
    except (ValueError, TypeError) as exc:  # (MultiLockError is a ValueError)
        raise UsageError(f"{FLAG}: {exc}") from None
    text = locks_text(locks)
    if text is not None and not getattr(args, "json", False):
        print(text, flush=True)
    return locks


def locks_fields(locks: MultiLocks | None, players: int) -> dict[str, object]:
    """The final JSON line's fields for ``locks`` (none without): ``locks``, the lock text
    applied; ``locked``, per player (player 0 first) the lines where it has locked hands."""
    if locks is None:
        return {}
    return {"locks": locks.spec, "locked": locks.lines(players)}


def locks_text(locks: MultiLocks | None) -> str | None:
    """One line for the text output: which player is locked where (players from 0, as the
    JSON lines count them), None without locks."""
    if locks is None:
        return None
    seen: dict[int, list[str]] = {}
    for s in locks.sets:
        where = seen.setdefault(s.player, [])
        if s.line not in where:
            where.append(s.line)
    parts = [f"player {p} at {', '.join(map(repr, lines))}" for p, lines in sorted(seen.items())]
    return "locked: " + "; ".join(parts)
