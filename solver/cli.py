"""Command line: ``python -m solver {games,algorithms,presets,solve,race,tree,batch,report,drill}``
(``batch`` and ``report``: see :mod:`solver.batch.cli`; ``drill``: :mod:`solver.drill_cli`).

``solve --json`` prints one JSON object per line: one per checkpoint (``iteration``,
``elapsed_s``, ``exploitability`` in chips, ``nodes_touched``; hold'em spots add
``exploitability_pct_pot`` and ``exploitability_mbb``) and a final one with ``"final": true``
and ``ev`` (player 0's and player 1's expected value in chips under the average strategies;
for hold'em spots each player's pot share minus chips put in after the start, summing to the
starting pot less the expected rake), and ``options``: every solver option as the solve ran
with it (:meth:`solver.cfr.options.SolveOptions.to_dict`, as a save file keeps them). A
raked spot (``--rake``) is not zero-sum: its exploitability is NashConv/2,
Σ_p (BR_p − u_p) / 2, and its lines carry ``"exploitability_kind": "nashconv/2"`` (without
rake it is the same number as (BR₀ + BR₁)/2).

``race --json`` prints one JSON object per line: each exploitability check as it is taken
(``algorithm`` — the entry's canonical text, e.g. ``cfr+:delay=100`` —, ``iteration``,
``cpu_s`` — that algorithm's own CPU seconds in iterations —, ``elapsed_s`` — race wall
time —, ``nodes_touched``, ``exploitability`` in chips; hold'em adds
``exploitability_pct_pot``); then one line per algorithm with ``"final": true``,
``algorithm``, ``label``, ``params`` (every parameter, defaults included), ``options``
(the entry's solver options, as ``solve``'s), ``iteration``,
``cpu_s``, ``nodes_touched``, ``exploitability``, ``stopped_by`` and ``targets`` (target as
given → ``{"iteration", "cpu_s"}`` of the first check at or below it, or null); then one line
``{"winners": {target: {"cpu_s": fastest entry or null, "iterations": [entries tied at the
fewest iterations]}}}``.

Sizes the tree builder plays at another amount than asked (raised to the minimum bet or
raise, forced or capped all-in, merged) are said: ``tree`` and ``solve`` print one ``note:``
line each on stderr; with ``--json``, ``tree``'s record and ``solve``'s final line carry
``size_notes`` (a list of objects: ``street``, ``player``, ``kind``, ``size``, ``chips``,
``amount``, ``became``, ``reason``, ``nodes``, ``text``; empty when every size is played as
asked). The big blind of a custom spot is 10 chips unless ``--big-blind`` says otherwise.

Every ``--json`` line is strict JSON: no NaN or infinity (null instead; an infinite rule
parameter is the text ``"inf"`` or ``"-inf"``).

Bad input prints one line on stderr and exits with code 2; an error the program did not
expect (a bug) prints one line too and exits with code 70 (``REGRET_LAB_DEBUG=1`` shows the
traceback). Limits on what a spot may ask for: ``docs/input-limits.md``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import NoReturn

from solver import drill_cli, prefetch
from solver.algorithms import (
    ALGORITHMS,
    SolveOptions,
    check_options,
    check_pruning,
    default_algorithm,
    make_algorithm,
)
from solver.api import Checkpoint, SolveResult, exploitability_pct_pot, solve
from solver.batch import cli as batch_cli
from solver.cfr.sampling.rules import SamplingRule
from solver.cliargs import EXIT_INTERNAL, EXIT_USAGE, UsageError
from solver.cliargs import float_arg as _float_arg
from solver.cliargs import int_arg as _int_arg
from solver.cliargs import json_line as _json_line
from solver.cliargs import target as _target
from solver.files.presets import PresetError, list_presets, load_preset
from solver.games import GAMES, Game, make_game
from solver.games.holdem import (
    RAKE_FIELDS,
    SPOT_FIELDS,
    HoldemSpec,
    SpecError,
    betting_tree,
    build_holdem,
    estimate,
    over_memory,
    validate,
)
from solver.games.model import auto_precision
from solver.lockspec import LockError
from solver.run.race import (
    DEFAULT_ITERATIONS,
    EntryError,
    RaceJob,
    RacePoint,
    RaceProgress,
    TargetError,
    default_targets,
    game_pot,
    markdown_table,
    parse_entries,
    parse_targets,
    standings,
    winner_lines,
    winners,
)
from solver.tree.betting import SizeNote, SizeNotes
from solver.warmup import GROUPS as WARMUP_GROUPS


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _parse_params(items: Sequence[str]) -> dict[str, float]:
    out: dict[str, float] = {}
    for item in items:
        if "=" not in item:
            raise UsageError(f"--param {item!r}: expected NAME=NUMBER, e.g. alpha=1.5")
        key, _, raw = item.partition("=")
        try:
            value = float(raw)
        except ValueError:
            raise UsageError(f"--param {key}: {raw!r} is not a number") from None
        if math.isnan(value):
            raise UsageError(f"--param {key}: {raw!r} is not a number")
        if math.isinf(value) and "inf" not in raw.lower():  # 1e400: past the float range
            raise UsageError(
                f"--param {key}: {raw!r} is past the float range (±1.8e308); write inf or -inf "
                "where the parameter takes an infinite value"
            )
        out[key.strip()] = value
    return out


def _params_json(params: Mapping[str, float]) -> dict[str, float | str]:
    """Rule parameters for a JSON line: an infinite one (dcfr's ``alpha=inf``,
    ``beta=-inf``) as the text ``--param`` takes, ``"inf"`` or ``"-inf"``."""
    return {k: v if math.isfinite(v) else str(float(v)) for k, v in params.items()}


def _add_game_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("game (one of --game, --preset, or a custom spot with --board)")
    g.add_argument("--game", help=f"a built-in game: {', '.join(GAMES)}, or preflop")
    g.add_argument(
        "--preset",
        help="a preset name from 'presets' (e.g. srp-river), or a .toml file given as a path "
        "(with a / or ending in .toml, e.g. ./my-spot.toml); a name never reads a file "
        "outside presets/",
    )
    g.add_argument("--board", help="hold'em spot: board cards, e.g. Td9d6hQc")
    g.add_argument("--pot", help="starting pot (chips)")
    g.add_argument("--stack", help="effective stack behind (chips)")
    g.add_argument("--oop-range", help="OOP range text, e.g. '66+, AQs+'")
    g.add_argument("--ip-range", help="IP range text")
    g.add_argument("--bets", help="bet sizes for every street and player (default 50%%, 100%%, a)")
    g.add_argument("--raises", help="raise sizes (default 100%%, a)")
    g.add_argument("--donks", help="OOP donk sizes on turn and river")
    g.add_argument(
        "--size",
        action="append",
        default=[],
        help="override STREET.PLAYER.KIND=SIZES, e.g. turn.ip.bets='75%%, a'",
    )
    g.add_argument(
        "--raise-cap",
        help="raises per street after the first bet (default 3; limits: docs/input-limits.md)",
    )
    g.add_argument("--add-allin", help="add-all-in threshold (stack ≤ X × pot; 0 = off)")
    g.add_argument("--force-allin", help="force-all-in threshold (SPR after call; 0 = off)")
    g.add_argument("--merging", help="merging threshold (× pot; 0 = off)")
    g.add_argument(
        "--big-blind",
        help="big blind in chips: the smallest bet, and the unit of mbb/hand (default 10)",
    )
    g.add_argument(
        "--max-memory-mb",
        help="refuse trees needing more (default 4096; also bounds the tree's nodes, see "
        "docs/input-limits.md)",
    )
    g.add_argument(
        "--rake",
        help="hold'em spot or preset: rake in %% of the pot at every fold and showdown, 0 to "
        "100 ('5%%' or '5': 5 %%; default 0, no rake); exploitability becomes NashConv/2",
    )
    g.add_argument("--rake-cap", help="rake cap in chips (default 0: no cap)")
    pf = p.add_argument_group("heads-up preflop (with --game preflop; docs/preflop.md)")
    pf.add_argument("--stack-bb", help="effective stack in big blinds, 1 to 50 (default 10)")
    pf.add_argument("--tree", help="push-fold (default) or raise-jam")
    pf.add_argument("--raise-sizes", help="raise-jam: raise-to sizes in bb, e.g. '2x' or '2, 3'")
    pf.add_argument("--ante", help="ante per player in big blinds (default 0)")
    pf.add_argument("--small-blind", help="small blind in big blinds (default 0.5)")
    pf.add_argument("--sb-range", help="SB range text (default: every hand)")
    pf.add_argument("--bb-range", help="BB range text (default: every hand)")


def _build_parser() -> _Parser:
    parser = _Parser(prog="python -m solver", description="Regret Lab solver")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    sub.add_parser("games", help="list the games")
    sub.add_parser("algorithms", help="list the algorithms with their parameters")
    sub.add_parser("presets", help="list the presets")
    s = sub.add_parser("solve", help="solve a game, preset or hold'em spot")
    _add_game_args(s)
    s.add_argument(
        "--algorithm",
        default=None,
        help="algorithm name (see 'algorithms'; default: dcfr-tuned for hold'em spots and "
        "presets, dcfr for kuhn, leduc, leduc5)",
    )
    s.add_argument("--iterations", type=str, default=None, help="maximum iterations")
    s.add_argument(
        "--target",
        type=str,
        default=None,
        help="stop at this exploitability: chips, or a percentage of the pot (0.3%%)",
    )
    s.add_argument("--every", type=str, default="10", help="measure every K iterations")
    s.add_argument("--threads", type=str, default="1", help="solver threads (default 1)")
    s.add_argument(
        "--precision",
        default="auto",
        help="storage: auto (float32 for big hold'em spots, float64 for small ones and "
        "kuhn, leduc, leduc5), "
        "float64, float32, compressed (16-bit)",
    )
    s.add_argument("--param", action="append", default=[], help="rule parameter NAME=VALUE")
    s.add_argument(
        "--pruning",
        default=None,
        help="none, partial (default for full-width rules: exact), interval (cfr) or total "
        "(cfr, cfr+); sampled algorithms take none",
    )
    s.add_argument(
        "--rbp-every",
        default="10",
        help="Total RBP: iterations between checks (each costs a best-response pass per "
        "player: 100 on long Leduc runs costs no more nodes than partial pruning); "
        "interval RBP: how long a pruning must be able to last",
    )
    s.add_argument(
        "--rbp-threshold",
        default="0",
        help="Total RBP: release strategy sums below C/sqrt(T) with this C (0 = keep them; "
        "C > 0 trades accuracy for space with cfr+ and stalls cfr, see BENCHMARKS.md)",
    )
    s.add_argument(
        "--rbp-free-opponent",
        action="store_true",
        help="Total RBP: also free the other player's regrets where the pruning player never "
        "comes (rebuilt from a best response when it does; less memory, slower convergence)",
    )
    s.add_argument("--seed", default="0", help="seed of the sampling algorithms (default 0)")
    s.add_argument(
        "--locks",
        metavar="FILE.json",
        help='node locks: {"LINE": MIX} with LINE the actions (and cards) from the root, '
        'space-separated ("k b:100"; "root" for the root), and MIX {"ACTION": probability} '
        'for every hand, {"HANDS": {"ACTION": probability}} for some, or "solved" '
        "(docs/locking.md)",
    )
    s.add_argument("--json", action="store_true", help="JSON lines output")
    r = sub.add_parser("race", help="race several algorithms on one game (fair CPU sharing)")
    _add_game_args(r)
    r.add_argument(
        "--algorithms",
        default=DEFAULT_RACE,
        help="comma list of NAME[:param=value;...], at most 6 "
        f"(default {DEFAULT_RACE}; e.g. 'cfr+,cfr+:delay=100,dcfr:alpha=1.5;beta=0.5')",
    )
    r.add_argument(
        "--iterations",
        default=str(DEFAULT_ITERATIONS),
        help=f"iterations per algorithm (default {DEFAULT_ITERATIONS})",
    )
    r.add_argument(
        "--targets",
        default=None,
        help="comma list of exploitabilities: chips, or %% of the pot for hold'em "
        "(default 0.01,0.001,0.0001 chips; hold'em 1%%,0.3%%,0.1%%)",
    )
    r.add_argument(
        "--threads", default=None, help="worker threads sharing the CPU (default min(2, N))"
    )
    r.add_argument(
        "--full",
        action="store_true",
        help="run every algorithm to --iterations (default: each stops at the hardest target)",
    )
    r.add_argument("--json", action="store_true", help="JSON lines output")
    t = sub.add_parser("tree", help="tree size and memory estimate of a spot, without solving")
    _add_game_args(t)
    t.add_argument("--json", action="store_true", help="JSON output")
    w = sub.add_parser(
        "warmup", help="compile every kernel variant once (fills Numba's on-disk cache)"
    )
    w.add_argument("--jobs", default="2", help="processes compiling at once (default 2)")
    w.add_argument("--group", choices=WARMUP_GROUPS, help=argparse.SUPPRESS)
    batch_cli.add_commands(sub, _add_game_args)
    drill_cli.add_command(sub, _add_game_args)
    return parser


# Spot flags → HoldemSpec fields (solver.games.spec.SPOT_FIELDS): only with --board; the
# rake flags with --board, or over a hold'em --preset's own
_SPOT_FLAGS = {
    f.flag: f.field for f in SPOT_FIELDS if f.field != "board" and f.field not in RAKE_FIELDS
}
_RAKE_FLAGS = {f.flag: f.field for f in SPOT_FIELDS if f.field in RAKE_FIELDS}


# --game preflop flags → solver.games.preflop.PreflopSpec fields
_PREFLOP_FLAGS = {
    "stack_bb": "stack_bb",
    "tree": "tree",
    "raise_sizes": "raise_sizes",
    "ante": "ante",
    "small_blind": "sb",
    "sb_range": "sb_range",
    "bb_range": "bb_range",
}


def _preflop_game(args: argparse.Namespace) -> Game:
    """``--game preflop`` from its flags; a bad value is one line naming its flag."""
    fields = {f: getattr(args, flag) for flag, f in _PREFLOP_FLAGS.items()}
    try:
        return make_game("preflop", **{k: v for k, v in fields.items() if v is not None})
    except SpecError as exc:
        by_field = {f: flag for flag, f in _PREFLOP_FLAGS.items()}
        where = _flag(by_field[exc.field]) if exc.field in by_field else exc.field
        raise UsageError(f"{where}: {exc.message}") from None


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _spot_spec(args: argparse.Namespace) -> HoldemSpec:
    for required in ("pot", "stack", "oop_range", "ip_range"):
        if getattr(args, required) is None:
            raise UsageError(f"{_flag(required)}: required for a hold'em spot (--board given)")
    kwargs: dict[str, object] = {"board": args.board, "name": "custom spot"}
    for flag, field_name in (_SPOT_FLAGS | _RAKE_FLAGS).items():
        value = getattr(args, flag)
        if value is not None:
            kwargs[field_name] = value
    sizes: dict[str, dict[str, dict[str, str]]] = {}
    for item in args.size:
        key, eq, value = item.partition("=")
        parts = key.strip().split(".")
        if not eq or len(parts) != 3:
            raise UsageError(f"--size {item!r}: expected STREET.PLAYER.KIND=SIZES")
        sizes.setdefault(parts[0], {}).setdefault(parts[1], {})[parts[2]] = value
    kwargs["sizes"] = sizes
    return HoldemSpec(**kwargs)  # type: ignore[arg-type]


def _game_from_args(args: argparse.Namespace) -> Game:
    chosen = [x for x in (args.game, args.preset, args.board) if x is not None]
    if len(chosen) != 1:
        raise UsageError("give exactly one of --game, --preset or --board")
    spot_flags = [f for f in _SPOT_FLAGS if getattr(args, f) is not None] + (
        ["size"] if args.size else []
    )
    if args.board is None and spot_flags:
        raise UsageError(f"{_flag(spot_flags[0])}: only with --board (a custom hold'em spot)")
    rake = {f: getattr(args, flag) for flag, f in _RAKE_FLAGS.items() if getattr(args, flag)
            is not None}  # fmt: skip
    if rake and args.game is not None:
        raise UsageError(_no_rake(args))
    preflop_flags = [f for f in _PREFLOP_FLAGS if getattr(args, f) is not None]
    is_preflop = args.game is not None and args.game.strip().lower() == "preflop"
    if preflop_flags and not is_preflop:
        raise UsageError(f"{_flag(preflop_flags[0])}: only with --game preflop")
    if is_preflop:
        return _preflop_game(args)
    if args.game is not None:
        if args.game.lower() not in GAMES:
            known = ", ".join([*GAMES, "preflop"])
            raise UsageError(f"--game: unknown game {args.game!r} (known: {known})")
        return make_game(args.game)
    try:
        if args.preset is not None:
            preset = load_preset(args.preset)
            if not rake:
                return preset.build()
            if preset.holdem is None:
                raise UsageError(_no_rake(args))
            spec = replace(preset.holdem, **rake)
            try:
                validate(spec)
            except SpecError as exc:
                if exc.field in rake:  # the flag's value, not the file's
                    raise UsageError(_spec_error(exc, from_flags=True)) from None
                raise
            return build_holdem(spec)
        return build_holdem(_spot_spec(args))
    except PresetError as exc:
        raise UsageError(f"--preset: {exc}") from None
    except SpecError as exc:
        raise UsageError(_spec_error(exc, from_flags=args.preset is None)) from None


def _no_rake(args: argparse.Namespace) -> str:
    """The refusal of a rake flag for a game that has no rake option."""
    flag = _flag(next(f for f in _RAKE_FLAGS if getattr(args, f) is not None))
    return (
        f"{flag}: only for hold'em spots (--board or a hold'em --preset); the toy and "
        "preflop games have no rake"
    )


def _batch_spot(args: argparse.Namespace) -> HoldemSpec:
    try:
        return _spot_spec(args)
    except UsageError as exc:
        raise ValueError(str(exc)) from None


def _spot_flag(field: str) -> str:
    by_field = {spec_field: flag for flag, spec_field in (_SPOT_FLAGS | _RAKE_FLAGS).items()}
    return _flag(by_field[field]) if field in by_field else field


_BATCH_SPOT = batch_cli.SpotFlags(_batch_spot, _spot_flag)


def _spec_error(exc: SpecError, from_flags: bool) -> str:
    """One line naming the bad field: as its CLI flag when the spot came from flags, as the
    spec field (as written in a preset file) otherwise."""
    if not from_flags:
        return f"--preset: {exc.field}: {exc.message}"
    by_field = {spec_field: flag for flag, spec_field in (_SPOT_FLAGS | _RAKE_FLAGS).items()}
    by_field["board"] = "board"
    if exc.field in by_field:
        return f"{_flag(by_field[exc.field])}: {exc.message}"
    if exc.field.startswith("sizes."):  # a per-street override: --size STREET.PLAYER.KIND=...
        return f"--size {exc.field.removeprefix('sizes.')}: {exc.message}"
    return f"{exc.field}: {exc.message}"


MAX_LOCKS_BYTES = 1_000_000
# The flag of each field of solver.cfr.options.check_options (a rule parameter: --param).
OPTION_FLAGS = {
    "algorithm": "--algorithm",
    "threads": "--threads",
    "precision": "--precision",
    "pruning": "--pruning",
    "seed": "--seed",
    "rbp_check_every": "--rbp-every",
    "rbp_threshold": "--rbp-threshold",
    "rbp_free_opponent": "--rbp-free-opponent",
    "locks": "--locks",
}


def _lockset_spec(result: SolveResult) -> dict:
    lockset = result.engine.lockset
    return dict(lockset.spec) if lockset is not None else {}


def _read_locks(path: str | None) -> dict | None:
    """The locks file's content (a JSON object), or UsageError naming --locks: a file that
    cannot be read, is larger than :data:`MAX_LOCKS_BYTES`, is not UTF-8 JSON (integers
    past 4,300 digits and nesting past the parser's depth included) or not an object."""
    if path is None:
        return None
    shown = path
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_LOCKS_BYTES + 1)
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the path
        reason = getattr(exc, "strerror", None) or str(exc)
        raise UsageError(f"--locks: cannot read {shown} ({reason})") from None
    if len(raw) > MAX_LOCKS_BYTES:
        raise UsageError(f"--locks: {shown} is larger than {MAX_LOCKS_BYTES:,} bytes")
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise UsageError(f"--locks: {shown} is not UTF-8 text") from None
    except (ValueError, RecursionError) as exc:  # JSONDecodeError is a ValueError
        raise UsageError(f"--locks: {shown} is not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise UsageError(f'--locks: {shown} must hold {{"LINE": MIX, ...}}')
    return data


def _cmd_games() -> None:
    for name in GAMES:
        g = make_game(name)
        print(f"{name:8s} {g.num_nodes:7d} nodes {g.num_infosets:7d} infosets  {g.description}")


def _cmd_algorithms() -> None:
    for name, info in ALGORITHMS.items():
        ps = ", ".join(f"{k}={v:g}" for k, v in info.defaults.items()) or "-"
        prunings = "/".join(info.prunings)
        print(
            f"{name:8s} {info.kind:10s} [{ps}] pruning {prunings}: {info.description} "
            f"({info.paper})"
        )


def _cmd_presets() -> None:
    for preset in list_presets():
        print(f"{preset.key:28s} {preset.game:7s} {preset.name}")


def _cmd_tree(args: argparse.Namespace) -> None:
    holdem_spec = None
    rake = {f: getattr(args, flag) for flag, f in _RAKE_FLAGS.items() if getattr(args, flag)
            is not None}  # fmt: skip
    if args.preset is not None and args.board is None and args.game is None:
        try:
            holdem_spec = load_preset(args.preset).holdem
        except PresetError as exc:
            raise UsageError(f"--preset: {exc}") from None
        if holdem_spec is not None and rake:  # checked as a solve of it would be
            holdem_spec = replace(holdem_spec, **rake)
    if args.board is not None or holdem_spec is not None:
        collected = SizeNotes()
        try:
            setup = validate(holdem_spec if holdem_spec is not None else _spot_spec(args))
            est = estimate(setup, betting_tree(setup, collected))
        except SpecError as exc:
            from_flags = holdem_spec is None or exc.field in rake  # the flag's, not the file's
            raise UsageError(_spec_error(exc, from_flags=from_flags)) from None
        refusal = over_memory(est, setup.spec.max_memory_mb)  # refused, as a solve is
        if refusal:
            flag = "--max-memory-mb" if holdem_spec is None else "--preset: max_memory_mb"
            raise UsageError(f"{flag}: {refusal}")
        info = {
            "nodes": est.nodes,
            "decision_nodes": est.decision_nodes,
            "chance_nodes": est.chance_nodes,
            "terminal_nodes": est.terminal_nodes,
            "hands": list(est.hands),
            "storage_entries": est.storage_entries,
            "memory_bytes": est.memory_bytes,
            "memory_mb": round(est.memory_mb, 3),
        }
        notes: list[SizeNote] = collected.notes()
        info["size_notes"] = [n.as_dict() for n in notes]
    else:
        game = _game_from_args(args)
        notes = []
        info = {
            "nodes": game.num_nodes,
            "decision_nodes": len(game.decision_nodes()),
            "infosets": game.num_infosets,
            "hands": list(game.num_hands),
            "storage_entries": game.action_size,
            # what the toy games' default solve holds: regrets and strategy sums in float64
            # (the current strategy of plain regret matching is derived, not stored)
            "memory_bytes": 2 * 8 * game.action_size,
            "memory_mb": round(2 * 8 * game.action_size / 2**20, 3),
        }
    if args.json:
        print(_json_line(info))
    else:
        for key, value in info.items():
            if key != "size_notes":
                print(f"{key:16s} {value}")
        _print_notes(notes, from_flags=holdem_spec is None)


def _print_notes(notes: Sequence[SizeNote], from_flags: bool) -> None:
    """One ``note:`` line per size played at another amount than asked, on stderr (the
    report on stdout stays as it was)."""
    hint = "--big-blind sets it" if from_flags else "the preset's big_blind sets it"
    for note in notes:
        extra = f"; {hint}" if note.big_blind else ""
        print(f"note: {note.text()}{extra}", file=sys.stderr)


def _game_notes(game: Game) -> list[SizeNote]:
    """The size notes of a built hold'em spot (none for toy games)."""
    notes = game.meta.get("size_notes") if game.is_holdem else None
    return list(notes) if isinstance(notes, list) else []


def _cmd_solve(args: argparse.Namespace, helper: prefetch.Helper) -> None:
    game: Game | None = None
    if args.algorithm is None:  # the default depends on the game
        game = _game_from_args(args)
        args.algorithm = default_algorithm(game.is_holdem)
    name = args.algorithm.strip().lower()
    if name not in ALGORITHMS:
        raise UsageError(
            f"--algorithm: unknown algorithm {args.algorithm!r} (known: {', '.join(ALGORITHMS)})"
        )
    params = _parse_params(args.param)
    iterations = _int_arg("--iterations", args.iterations, 0)
    every = _int_arg("--every", args.every, 1)
    threads = _int_arg("--threads", args.threads, 1)
    seed = _int_arg("--seed", args.seed, 0)
    rbp_every = _int_arg("--rbp-every", args.rbp_every, 1)
    assert every is not None and threads is not None and seed is not None
    assert rbp_every is not None
    rbp_threshold = _float_arg("--rbp-threshold", args.rbp_threshold, zero=True)
    assert rbp_threshold is not None
    pruning = args.pruning.strip().lower() if args.pruning is not None else None
    options = SolveOptions(
        threads=threads,
        precision=args.precision,
        pruning=pruning,
        seed=seed,
        rbp_check_every=rbp_every,
        rbp_threshold=rbp_threshold,
        rbp_free_opponent=args.rbp_free_opponent,
    )
    errors = options.check(name, params)
    locks = _read_locks(args.locks)
    if locks:  # whether the algorithm takes locks at all (with RBP: the solver says)
        errors.update({k: v for k, v in check_options(name, params, locked=True).items()
                       if k == "locks"})  # fmt: skip
    if errors:  # the solver's own validator; its first message, under the flag's name
        field, message = next(iter(errors.items()))
        raise UsageError(f"{OPTION_FLAGS.get(field, '--param')}: {message}")
    rule = make_algorithm(name, **params)
    pruning = check_pruning(name, pruning)
    options = replace(options, pruning=pruning, locks=locks)
    if game is None:
        game = _game_from_args(args)
    storage = options.precision
    if storage == "auto":
        storage = auto_precision(game.is_holdem, game.action_size)
    helper.use(storage, sampled=isinstance(rule, SamplingRule), pruning=pruning)
    target = _target(args.target, game)
    notes = _game_notes(game)
    if not args.json:  # said before the solve starts; --json carries them in the final line
        _print_notes(notes, from_flags=args.board is not None)

    def report(cp: Checkpoint) -> None:
        if args.json:
            print(_json_line(cp.as_dict(game)), flush=True)
        else:
            extra = ""
            if game.is_holdem:
                extra = f" ({exploitability_pct_pot(game, cp.exploitability):.4f}% pot)"
            if game.has_rake:  # not zero-sum: half the sum of both players' gains
                extra += " NashConv/2"
            print(
                f"iter {cp.iteration:8d}  {cp.elapsed_s:9.3f} s  "
                f"exploitability {cp.exploitability:.6g} chips{extra}",
                flush=True,
            )

    try:
        result = solve(
            game,
            rule,
            iterations=iterations,
            target_exploitability=target,
            check_every=every,
            callback=report,
            options=options,
        )
    except LockError as exc:
        raise UsageError(f"--locks: {exc}") from None
    except ValueError as exc:  # a combination the solver refuses (e.g. compressed + RBP)
        raise UsageError(str(exc)) from None
    ev = result.ev
    final = {
        "final": True,
        "game": game.name,
        "algorithm": rule.name,
        "params": _params_json(rule.params()),
        "pruning": pruning,
        "seed": seed,
        **({"locks": _lockset_spec(result)} if locks else {}),
        "options": result.engine.options.to_dict(),  # every option, as a save file keeps them
        **result.history[-1].as_dict(game),
        "ev": [ev[0], ev[1]],
        "stopped_by": result.stopped_by,
        **({"size_notes": [n.as_dict() for n in notes]} if game.is_holdem else {}),
    }
    if args.json:
        print(_json_line(final), flush=True)
    else:
        print(
            f"done: {result.iteration} iterations, {result.elapsed_s:.3f} s, "
            f"exploitability {result.exploitability:.6g} chips, "
            f"EV player 0 {ev[0]:+.6f}, player 1 {ev[1]:+.6f}"
        )


DEFAULT_RACE = "cfr,cfr+,dcfr,pcfr+,sapcfr+"


def _point_json(p: RacePoint, algorithm: str, game: Game) -> dict[str, object]:
    out: dict[str, object] = {
        "algorithm": algorithm,
        "iteration": p.iteration,
        "cpu_s": round(p.cpu_s, 6),
        "elapsed_s": round(p.wall_s, 6),
        "nodes_touched": p.nodes_touched,
        "memory_bytes": p.memory_bytes,
        "exploitability": p.exploitability,
    }
    if game.is_holdem:
        out["exploitability_pct_pot"] = exploitability_pct_pot(game, p.exploitability)
    if game.has_rake:  # not zero-sum: half the sum of both players' gains
        out["exploitability_kind"] = "nashconv/2"
    return out


def _race_summary(progress: RaceProgress, game: Game) -> list[dict[str, object]]:
    """The final JSON lines: one per algorithm, then the winners."""
    out: list[dict[str, object]] = []
    for lane, s in zip(progress.lanes, standings(progress), strict=True):
        line: dict[str, object] = {
            "final": True,
            "algorithm": lane.entry.text,
            "label": lane.entry.label,
            "params": _params_json(lane.entry.all_params()),
            "options": lane.entry.options.to_dict(),
            "iteration": s.iteration,
            "cpu_s": round(s.cpu_s, 6),
            "nodes_touched": s.nodes_touched,
            "exploitability": s.exploitability,
            "stopped_by": lane.stopped_by,
            "targets": {
                t.label: None if h is None else {"iteration": h.iteration, "cpu_s": h.cpu_s}
                for t, h in zip(progress.targets, s.hits, strict=True)
            },
        }
        if game.is_holdem and s.exploitability is not None:
            line["exploitability_pct_pot"] = exploitability_pct_pot(game, s.exploitability)
        out.append(line)
    out.append(
        {
            "winners": {
                w.target.label: {"cpu_s": w.cpu, "iterations": list(w.iterations)}
                for w in winners(progress)
            }
        }
    )
    return out


def _cmd_race(args: argparse.Namespace, helper: prefetch.Helper) -> int:
    try:
        entries = parse_entries(args.algorithms)
    except EntryError as exc:
        raise UsageError(f"--algorithms: {exc}") from None
    iterations = _int_arg("--iterations", args.iterations, 1)
    workers = _int_arg("--threads", args.threads, 1)
    assert iterations is not None
    game = _game_from_args(args)
    try:
        pot = game_pot(game)
        targets = default_targets(pot) if args.targets is None else parse_targets(args.targets, pot)
    except TargetError as exc:
        raise UsageError(f"--targets: {exc}") from None
    sampled = all(ALGORITHMS[e.name].sampling for e in entries)
    helper.use(auto_precision(game.is_holdem, game.action_size), sampled=sampled)
    job = RaceJob(
        game,
        entries,
        max_iterations=iterations,
        targets=targets,
        stop_at_target=not args.full,
        workers=workers,
    )
    seen = [0] * len(entries)
    job.start()
    try:
        while True:
            ended = not job.alive
            progress = job.progress
            if args.json:
                fresh = [
                    (p, lane.entry.text)
                    for k, lane in enumerate(progress.lanes)
                    for p in lane.points[seen[k] :]
                ]
                for p, text in sorted(fresh, key=lambda x: x[0].wall_s):
                    print(_json_line(_point_json(p, text, game)), flush=True)
                seen = [len(lane.points) for lane in progress.lanes]
            if ended:
                break
            time.sleep(0.02)
    except KeyboardInterrupt:
        job.stop()
        job.join()
        raise
    if progress.error:
        print(f"error: {progress.error}", file=sys.stderr)
    if args.json:
        for line in _race_summary(progress, game):
            print(_json_line(line), flush=True)
    else:
        unit = "% of the pot" if game.is_holdem else "chips"
        print(
            f"# {game.name}: {len(entries)} algorithms, up to {iterations:,} iterations each, "
            f"{job.workers} worker thread(s); targets {', '.join(t.label for t in targets)} "
            f"({unit}); race wall time {progress.wall_s:.2f} s"
        )
        print()
        print(markdown_table(progress))
        print()
        for sentence in winner_lines(progress):
            print(f"- {sentence}")
    return 1 if progress.error else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = _build_parser()
    try:
        args = parser.parse_args(argv)
        if args.command == "games":
            _cmd_games()
        elif args.command == "algorithms":
            _cmd_algorithms()
        elif args.command == "presets":
            _cmd_presets()
        elif args.command == "tree":
            _cmd_tree(args)
        elif args.command == "race":
            with prefetch.helping("float64") as helper:
                return _cmd_race(args, helper)
        elif args.command == "batch":
            return batch_cli.cmd_batch(args, _BATCH_SPOT)
        elif args.command == "report":
            return batch_cli.cmd_report(args)
        elif args.command == "drill":
            return drill_cli.cmd_drill(args, _game_from_args)
        elif args.command == "warmup":
            from solver.warmup import run_group, warm_all

            if args.group is not None:
                run_group(args.group)
            else:
                warm_all(jobs=_int_arg("--jobs", args.jobs, 1) or 1)
        else:
            # a second process compiles the first solve's kernels from the other end while
            # this one types the walk (cold cache only): for float64 storage until the game
            # is built and says which
            guess = "float64" if args.precision == "auto" else args.precision
            with prefetch.helping(guess) as helper:
                _cmd_solve(args, helper)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # a bug: one line, not a traceback (the fuzz suite counts these)
        if os.environ.get("REGRET_LAB_DEBUG"):
            raise
        print(
            f"error: internal error ({type(exc).__name__}: {str(exc)[:300]}); please report "
            "it (REGRET_LAB_DEBUG=1 prints the traceback)",
            file=sys.stderr,
        )
        return EXIT_INTERNAL
    return 0
