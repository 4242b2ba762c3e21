"""What the command line's parts share: the usage error (one line, exit 2), the exit codes,
the checked reading of numbers and targets from flags, and the solver options from their
flags (:func:`solve_options`, one conversion per kind of :data:`OPTION_FIELDS` row).
:mod:`solver.cli` and the commands it registers (:mod:`solver.cli.drill`) import it; it
imports neither."""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Mapping
from dataclasses import fields
from typing import Any

from solver.batch.report import json_safe
from solver.cfr.options import OPTION_FIELDS, OptionField, SolveOptions
from solver.games import Game
from solver.quoting import shown_path

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


MAX_JSON_FILE_BYTES = 1_000_000
"""The largest JSON file an option's flag reads (``--locks``), bytes."""


FILE_SHAPES = {"locks": '{"LINE": MIX, ...}'}
"""What a "file" option's JSON object looks like, for the message when a file holds none
(a field without an entry: "a JSON object")."""


def json_file(flag: str, path: str, shape: str = "a JSON object") -> dict[str, Any]:
    """The JSON object in the file ``path`` that ``flag`` names, or :class:`UsageError`
    naming ``flag``: a file that cannot be read, is larger than :data:`MAX_JSON_FILE_BYTES`,
    is not UTF-8 JSON (integers past 4,300 digits and nesting past the parser's depth
    included) or holds no object (it "must hold ``shape``")."""
    shown = shown_path(path)
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_JSON_FILE_BYTES + 1)
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the path
        reason = getattr(exc, "strerror", None) or str(exc)
        raise UsageError(f"{flag}: cannot read {shown} ({reason})") from None
    if len(raw) > MAX_JSON_FILE_BYTES:
        raise UsageError(f"{flag}: {shown} is larger than {MAX_JSON_FILE_BYTES:,} bytes")
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise UsageError(f"{flag}: {shown} is not UTF-8 text") from None
    except (ValueError, RecursionError) as exc:  # JSONDecodeError is a ValueError
        raise UsageError(f"{flag}: {shown} is not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise UsageError(f"{flag}: {shown} must hold {shape}")
    return data


_DEFAULTS = {f.name: f.default for f in fields(SolveOptions)}


def flag_value(row: OptionField, raw: object) -> object:
    """What ``row``'s flag typed as ``raw`` gives its field, by the row's widget kind and
    the field's default: a "number" as a whole number (an int field) or a number (a float
    field), a "select" as its lower-case text, a "checkbox" as it is, a "file" as the JSON
    object it holds (:func:`json_file`); None (a flag not given, without a default) stays
    None. Text that is no number is a :class:`UsageError` naming the flag; whether the value
    holds is the solve's one validator's to say (at :func:`solver.algorithms.make_solver`)."""
    if raw is None or row.widget == "checkbox":
        return raw
    text = str(raw).strip()
    if row.widget == "file":
        return json_file(row.flag, str(raw), FILE_SHAPES.get(row.field, "a JSON object"))
    if row.widget == "select":
        return text.lower()
    default = _DEFAULTS[row.field]
    if isinstance(default, int) and not isinstance(default, bool):
        try:
            return int(text)
        except ValueError:  # (also past Python's 4,300 digits)
            raise UsageError(f"{row.flag}: {raw!r} is not a whole number") from None
    try:
        return float(text)
    except ValueError:
        raise UsageError(f"{row.flag}: {raw!r} is not a number") from None


def solve_options(args: argparse.Namespace) -> SolveOptions:
    """The solver options ``solve``'s flags give: every :data:`OPTION_FIELDS` row's flag
    through :func:`flag_value` (the flags themselves: :func:`solver.cli.parser.add_solve_args`,
    from the same table). Not checked here: the solve's gate checks them once, and the CLI
    names the flag of a field it refuses."""
    values: dict[str, Any] = {
        row.field: flag_value(row, getattr(args, _dest(row))) for row in OPTION_FIELDS
    }
    return SolveOptions(**values)


def _dest(row: OptionField) -> str:
    """The attribute argparse keeps ``row``'s flag under (``--rbp-every`` → rbp_every)."""
    return row.flag.removeprefix("--").replace("-", "_")


def storage_guess(args: argparse.Namespace) -> str:
    """The storage a solve's flags most likely get, before its game is built (the prefetch
    helper's first plan): its ``--precision``, with "auto" guessed float64."""
    row = next(r for r in OPTION_FIELDS if r.field == "precision")
    precision = str(flag_value(row, getattr(args, _dest(row))))
    return "float64" if precision == "auto" else precision
