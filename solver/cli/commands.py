"""Command line: ``python -m solver {games,algorithms,presets,solve,race,tree,batch,report,drill,
exploit}`` (``batch`` and ``report``: see :mod:`solver.batch.cli`; ``drill``:
:mod:`solver.cli.drill`; ``exploit``: :mod:`solver.cli.exploit`).

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
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace

from solver.algorithms import (
    ALGORITHMS,
    MCCFR_CS,
    default_algorithm,
)
from solver.api import Checkpoint, SolveResult, exploitability_pct_pot, solve
from solver.batch import cli as batch_cli
from solver.cfr.options import OPTION_FIELDS, OptionError, parse_param
from solver.cli import drill as drill_cli
from solver.cli import exploit as exploit_cli
from solver.cli import multi as multi_cli
from solver.cli import race as race_cli
from solver.cli import sizes as sizes_cli
from solver.cli.args import EXIT_INTERNAL, EXIT_USAGE, UsageError, solve_options, storage_guess
from solver.cli.args import int_arg as _int_arg
from solver.cli.args import json_line as _json_line
from solver.cli.args import params_json as _params_json
from solver.cli.args import target as _target
from solver.cli.parser import build_parser as _build_parser
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
from solver.run import prefetch
from solver.tree.betting import SizeNote, SizeNotes


def _parse_params(items: Sequence[str]) -> dict[str, float]:
    out: dict[str, float] = {}
    for item in items:
        if "=" not in item:
            raise UsageError(f"--param {item!r}: expected NAME=NUMBER, e.g. alpha=1.5")
        key, _, raw = item.partition("=")
        try:
            value = parse_param(raw)
        except ValueError as exc:
            raise UsageError(f"--param {key}: {exc}") from None
        out[key.strip()] = value
    return out


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
        if multi_cli.is_multi(args):
            raise UsageError(f"--game: {args.game} (three players) is for the solve command")
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


# The flag of each field of solver.cfr.options.validate (a rule parameter: --param).
OPTION_FLAGS = {"algorithm": "--algorithm", **{f.field: f.flag for f in OPTION_FIELDS}}


def _lockset_spec(result: SolveResult) -> dict:
    lockset = result.engine.lockset
    return dict(lockset.spec) if lockset is not None else {}


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


def _run_solve(
    args: argparse.Namespace,
    helper: prefetch.Helper,
    before: Callable[[Game], None] | None = None,
) -> tuple[SolveResult, dict[str, object]]:
    """The solve ``solve``'s flags describe, its checkpoints printed as they come: the result
    and its final record (not printed). ``before`` checks the built game before the solve
    starts (``exploit``'s --line and --player)."""
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
    assert every is not None
    values = solve_options(args)
    if game is None:
        game = _game_from_args(args)
    try:  # the one check of the options, with the game's size (make_solver takes it as is)
        options = values.checked(name, params, game=game)
    except OptionError as exc:  # the validator's message, under the flag's name
        raise UsageError(f"{OPTION_FLAGS.get(exc.field, '--param')}: {exc.message}") from None
    pruning = str(options.pruning)  # (resolved by checked())
    sampled = ALGORITHMS[name].sampling and name != MCCFR_CS  # the scalar samplers
    storage = options.precision
    if storage == "auto":
        storage = auto_precision(game.is_holdem, game.action_size)
    helper.use(storage, sampled=sampled, pruning=pruning)
    target = _target(args.target, game)
    if before is not None:
        before(game)
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
            name,
            iterations=iterations,
            target_exploitability=target,
            check_every=every,
            callback=report,
            params=params,
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
        "algorithm": result.rule.name,
        "params": _params_json(result.rule.params()),
        "pruning": pruning,
        "seed": options.seed,
        **({"locks": _lockset_spec(result)} if options.locks else {}),
        "options": result.engine.options.to_dict(),  # every option, as a save file keeps them
        **result.history[-1].as_dict(game),
        "ev": [ev[0], ev[1]],
        "stopped_by": result.stopped_by,
        **({"size_notes": [n.as_dict() for n in notes]} if game.is_holdem else {}),
    }
    return result, final


def _cmd_solve(args: argparse.Namespace, helper: prefetch.Helper) -> None:
    result, final = _run_solve(args, helper)
    ev = final["ev"]  # (computed once: each is a walk of the tree)
    assert isinstance(ev, list)
    if args.json:
        print(_json_line(final), flush=True)
    else:
        print(
            f"done: {result.iteration} iterations, {result.elapsed_s:.3f} s, "
            f"exploitability {result.exploitability:.6g} chips, "
            f"EV player 0 {ev[0]:+.6f}, player 1 {ev[1]:+.6f}"
        )


def _solve_for_exploit(args: argparse.Namespace, before: Callable[[Game], None]) -> SolveResult:
    """``exploit``'s solve: ``solve``'s path, its final record left to ``exploit``."""
    with prefetch.helping(storage_guess(args)) as helper:
        return _run_solve(args, helper, before)[0]


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
                return race_cli.cmd_race(args, _game_from_args, helper)
        elif args.command == "batch":
            return batch_cli.cmd_batch(args, _BATCH_SPOT)
        elif args.command == "report":
            return batch_cli.cmd_report(args)
        elif args.command == "drill":
            return drill_cli.cmd_drill(args, _game_from_args)
        elif args.command == "exploit":
            return exploit_cli.cmd_exploit(args, _solve_for_exploit)
        elif args.command == "sizes":
            return sizes_cli.cmd_sizes(args, _spot_spec, _spec_error)
        elif args.command == "warmup":
            from solver.run.warmup import run_group, warm_all

            if args.group is not None:
                run_group(args.group)
            else:
                warm_all(jobs=_int_arg("--jobs", args.jobs, 1) or 1)
        elif multi_cli.is_multi(args):  # three players: kuhn3, leduc3 (docs/multiway.md)
            multi_cli.cmd_solve_multi(args)
        else:
            # a second process compiles the first solve's kernels from the other end while
            # this one types the walk (cold cache only): for float64 storage until the game
            # is built and says which
            with prefetch.helping(storage_guess(args)) as helper:
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
