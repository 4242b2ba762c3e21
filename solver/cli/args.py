"""What the command line's parts share: the usage error (one line, exit 2), the exit codes,
and the checked reading of numbers and targets from flags. :mod:`solver.cli` and the commands
it registers (:mod:`solver.cli.drill`) import it; it imports neither."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from solver.batch.report import json_safe
from solver.games import Game

EXIT_USAGE = 2
EXIT_INTERNAL = 70  # EX_SOFTWARE: an error the program did not expect


class UsageError(Exception):
    """Bad input from the command line: reported as one line, exit code 2."""


MAX_LOAD_BYTES = 2_000_000_000
"""The largest saved solve ``--load`` reads (bytes), checked before a byte is read."""


def load_saved(path: str) -> Any:
    """The saved solve ``--load PATH`` names (:class:`~solver.files.export.LoadedSolve`): a
    regular file within :data:`MAX_LOAD_BYTES`, checked before reading (not a FIFO,
    ``/dev/zero``), then loaded; :class:`UsageError` naming ``--load`` else."""
    from solver.files.export import ExportError, load_solve
    from solver.files.safe_read import ReadError, read_regular
    from solver.quoting import shown_path

    try:
        data = read_regular(path, MAX_LOAD_BYTES)
    except ReadError as exc:
        raise UsageError(f"--load: {shown_path(path)} {exc}") from None
    try:
        return load_solve(data)
    except ExportError as exc:
        raise UsageError(f"--load: {shown_path(path)}: {exc}") from None


def json_line(record: Mapping[str, object]) -> str:
    """``record`` as one line of strict JSON: NaN and infinities, which JSON does not have,
    as null (:func:`solver.batch.report.json_safe`; rule parameters go through
    :func:`params_json` first)."""
    return json.dumps(json_safe(record), allow_nan=False)


def int_arg(name: str, raw: str | None, minimum: int) -> int | None:
    if raw is None:
        return None
    try:
        value = int(raw)
    except ValueError:
        raise UsageError(f"{name}: {raw!r} is not a whole number") from None
    if value < minimum:
        raise UsageError(f"{name}: must be ≥ {minimum}, got {value}")
    return value


def float_arg(name: str, raw: str | None, zero: bool = False) -> float | None:
    """``raw`` as a finite number > 0 (≥ 0 with ``zero``); None stays None."""
    if raw is None:
        return None
    try:
        value = float(raw)
    except ValueError:
        raise UsageError(f"{name}: {raw!r} is not a number") from None
    if not (value > 0 or (zero and value == 0)) or math.isinf(value):
        kind = "a number ≥ 0" if zero else "a positive number"
        raise UsageError(f"{name}: must be {kind}, got {raw!r}")
    return value


def target(raw: str | None, game: Game) -> float | None:
    if raw is None:
        return None
    text = raw.strip()
    if text.endswith("%"):
        if not game.is_holdem:
            raise UsageError("--target: a percentage of the pot needs a hold'em spot; use chips")
        pct = float_arg("--target", text[:-1])
        assert pct is not None
        return pct / 100.0 * game.starting_pot
    return float_arg("--target", text)


def params_json(params: Mapping[str, float]) -> dict[str, float | str]:
    """Rule parameters for a JSON line: an infinite one (dcfr's ``alpha=inf``,
    ``beta=-inf``) as the text ``--param`` takes, ``"inf"`` or ``"-inf"``."""
    return {k: v if math.isfinite(v) else str(float(v)) for k, v in params.items()}
