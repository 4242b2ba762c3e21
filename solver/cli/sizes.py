"""``python -m solver sizes``: certified bet-size simplification of a hold'em spot
(:mod:`solver.study.sizes`; docs/sizes.md).

The spot is given as ``solve`` takes it (``--preset`` or ``--board`` with the spot flags,
``--rake``), with ``--grid`` (bet sizes, default :data:`~solver.study.sizes.DEFAULT_GRID`),
``--raise-grid``, ``--player oop|ip|both``, ``--nodes root|street|all``, ``--keep K``,
``--swap`` (a pass of swaps after greedy) and the
solves' ``--target`` (chips or % of the pot; default 0.05 %), ``--iterations`` (most per
solve), ``--every``, ``--threads``, ``--algorithm``.

Output: per player the kept sizes at each node, each size's removal regret, and the
certificate in words. With ``--json``: one line per check of every solve (``player``,
``stage``, ``iteration``, ``exploitability_pct_pot``), then per player a line with ``"final":
true`` and the fields of :meth:`~solver.study.sizes.SizesResult.as_dict` (``player``,
``keep``, ``kept``, ``removal_regret``, ``value_full``, ``value_kept``, ``loss_chips``,
``loss_pct_pot``, ``exploitability_superset``, ``exploitability_final``,
``superset_seconds``, ``seconds``, …); ``both`` prints OOP's, then IP's (the last line).
``--save FILE`` (one player) writes the final solve of the simplified tree as a normal save
(its source names the removed sizes) that ``exploit --load``, ``drill --load`` and the app
open; the final line then says ``"saved": FILE``.
Bad input: one line naming the flag, exit code 2, before any solve.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from solver.api import Checkpoint
from solver.cli.args import UsageError, float_arg, int_arg, json_line
from solver.games.spec import RAKE_FIELDS, SPOT_FIELDS, HoldemSpec, SpecError, validate
from solver.quoting import shown_path

SpotSpec = Callable[[argparse.Namespace], HoldemSpec]
SpecWords = Callable[[SpecError, bool], str]
FLAGS = {"grid": "--grid", "raise_grid": "--raise-grid", "keep": "--keep", "nodes": "--nodes",
         "player": "--player", "algorithm": "--algorithm", "threads": "--threads",
         "iterations": "--iterations", "check_every": "--every", "target": "--target"}  # fmt: skip


def add_command(sub: Any, add_game_args: Callable[[argparse.ArgumentParser], None]) -> None:
    """Register ``sizes`` on the CLI's subparsers with the spot flags of ``solve``."""
    from solver.study.sizes import DEFAULT_GRID

    s = sub.add_parser(
        "sizes", help="keep the bet sizes that matter, with what the others were worth"
    )
    add_game_args(s)
    g = s.add_argument_group("sizes")
    g.add_argument(
        "--grid",
        default=DEFAULT_GRID,
        help="bet sizes (default " + DEFAULT_GRID.replace("%", "%%") + ")",
    )
    g.add_argument("--raise-grid", help="raise sizes at the raise nodes (nodes street or all)")
    g.add_argument("--player", default="both", help="oop, ip or both (default both)")
    g.add_argument(
        "--nodes", default="street", help="root, street (default: the first street) or all"
    )
    g.add_argument("--keep", default="2", help="sizes kept per node (default 2)")
    g.add_argument(
        "--swap",
        action="store_true",
        help="after greedy, try each kept size against each removed one (more re-solves)",
    )
    g.add_argument(
        "--save",
        metavar="FILE.npz",
        help="write the simplified tree's final solve as a save (one player: --player oop|ip)",
    )
    v = s.add_argument_group("the solves")
    v.add_argument("--algorithm", default=None, help="a full-width algorithm (default dcfr-tuned)")
    v.add_argument(
        "--target", default=None, help="each solve's exploitability: chips or %% pot (0.05%%)"
    )
    v.add_argument("--iterations", default=None, help="most iterations per solve")
    v.add_argument("--every", default="10", help="measure every K iterations")
    v.add_argument("--threads", default="1", help="solver threads")
    v.add_argument("--json", action="store_true", help="JSON lines output")


def _spot(args: argparse.Namespace, spot_spec: SpotSpec, words: SpecWords) -> HoldemSpec:
    """The hold'em spot of --preset or --board (with --rake over a preset's own)."""
    from solver.files.presets import PresetError, load_preset

    if args.game is not None:
        raise UsageError("--game: sizes needs a hold'em spot (--preset or --board)")
    for flag in ("stack_bb", "tree", "raise_sizes", "ante", "small_blind", "sb_range", "bb_range"):
        if getattr(args, flag, None) is not None:
            raise UsageError(
                f"--{flag.replace('_', '-')}: preflop only; sizes takes a hold'em spot"
            )
    if (args.preset is None) == (args.board is None):
        raise UsageError("give exactly one of --preset or --board")
    rake_flags = {f.flag: f.field for f in SPOT_FIELDS if f.field in RAKE_FIELDS}
    if args.board is not None:
        return spot_spec(args)
    spot_flags = [
        f.flag
        for f in SPOT_FIELDS
        if f.field != "board" and f.field not in RAKE_FIELDS and getattr(args, f.flag) is not None
    ] + (["size"] if args.size else [])
    if spot_flags:
        raise UsageError(f"--{spot_flags[0].replace('_', '-')}: only with --board")
    try:
        preset = load_preset(args.preset)
    except PresetError as exc:
        raise UsageError(f"--preset: {exc}") from None
    if preset.holdem is None:
        raise UsageError(f"--preset: {args.preset!r} is not a hold'em spot")
    rake = {f: getattr(args, flag) for flag, f in rake_flags.items() if getattr(args, flag)
            is not None}  # fmt: skip
    spec = replace(preset.holdem, **rake)
    try:
        validate(spec)
    except SpecError as exc:
        raise UsageError(words(exc, exc.field in rake)) from None  # the flag's value
    return spec


def _target(raw: str | None, spec: HoldemSpec) -> float | None:
    if raw is None:
        return None
    text = raw.strip()
    if text.endswith("%"):
        pct = float_arg("--target", text[:-1])
        assert pct is not None
        return pct / 100.0 * float(validate(spec).config.pot)
    return float_arg("--target", text)


def cmd_sizes(args: argparse.Namespace, spot_spec: SpotSpec, words: SpecWords) -> int:
    """Run ``sizes``: check everything, then simplify each player (``both``: OOP, then IP on
    the same superset solve)."""
    from solver.study.sizes import PLAYERS, SizesError, plan, simplify_sizes

    spec = _spot(args, spot_spec, words)
    player = str(args.player).strip().lower()
    if player not in (*PLAYERS, "both"):
        raise UsageError(f"--player: {args.player!r} is not oop, ip or both")
    save = _save_path(args.save, player)
    keep = int_arg("--keep", args.keep, 1)
    iterations = int_arg("--iterations", args.iterations, 1)
    every = int_arg("--every", args.every, 1)
    threads = int_arg("--threads", args.threads, 1)
    algorithm = args.algorithm.strip().lower() if args.algorithm is not None else None
    try:
        plan(spec, args.grid, args.raise_grid, args.nodes, keep or 1)
        target = _target(args.target, spec)
        spec_pot = float(validate(spec).config.pot)
        superset = None
        for p in PLAYERS if player == "both" else (player,):

            def report(stage: str, cp: Checkpoint, p: str = p) -> None:
                if args.json:
                    pct = 100.0 * cp.exploitability / spec_pot
                    record = {"player": p, "stage": stage, "iteration": cp.iteration,
                              "exploitability": cp.exploitability,
                              "exploitability_pct_pot": pct}  # fmt: skip
                    print(json_line(record), flush=True)

            result = simplify_sizes(
                spec, args.grid, args.raise_grid, p, args.nodes, keep or 1, target=target,
                iterations=iterations, threads=threads or 1, algorithm=algorithm,
                check_every=every or 10, superset=superset, swap=args.swap, progress=report,
            )  # fmt: skip
            superset = result.superset
            saved = {"saved": save} if save is not None else {}
            if save is not None:
                _write_save(save, result)
            if args.json:
                print(json_line({"final": True, **result.as_dict(), **saved}), flush=True)
            else:
                _text(result)
                if save is not None:
                    print(f"saved the simplified tree's solve to {shown_path(save)}")
    except SizesError as exc:
        raise UsageError(f"{FLAGS.get(exc.field, exc.field)}: {exc.message}") from None
    except SpecError as exc:
        raise UsageError(words(exc, args.board is not None)) from None
    return 0


def _save_path(raw: str | None, player: str) -> str | None:
    """``--save``'s path, checked before anything is solved: one player, a file name in a
    folder that exists."""
    if raw is None:
        return None
    if player == "both":
        raise UsageError("--save: one simplified tree per save: give --player oop or ip")
    path = Path(raw)
    if not raw.strip() or path.is_dir():
        raise UsageError(f"--save: {shown_path(raw)} is not a file name")
    if not path.parent.is_dir():
        raise UsageError(f"--save: no folder {shown_path(str(path.parent))}")
    return raw


def _write_save(path: str, result: Any) -> None:
    """The final solve of ``result``'s simplified tree as a save (:func:`save_solve`)."""
    from solver.files.export import save_solve

    final = result.final
    data = save_solve(final.engine, result.source().to_dict(), tuple(final.history))
    try:
        Path(path).write_bytes(data)
    except OSError as exc:
        raise UsageError(f"--save: {shown_path(path)}: {exc.strerror or exc}") from None


def _text(result: Any) -> None:
    """The text output of one player's simplification."""
    who = result.player.upper()
    for line, kept in result.kept.items():
        names = result.sizes[line]
        shown = ", ".join(f"{names.get(a, a)} ({a})" for a in kept)
        print(f"{who} at {line}: keeps {shown}")
        for action, r in result.removal_regret[line].items():
            how = "re-solve" if result.confirmed[line].get(action) else "bound"
            mark = "kept" if action in kept else "removed"
            print(f"  {names.get(action, action):>6s} {action:>8s} {mark:8s} R = {r:+.4f} "
                  f"chips ({how})")  # fmt: skip
    gives = (
        f"gives up {result.loss_chips:.4f} chips ({result.loss_pct_pot:.3f} % of the pot)"
        if result.loss_chips > 0  # below zero: the solves' own error (docs/sizes.md)
        else f"gives up nothing measurable ({result.loss_chips:.4f} chips, within the error bars)"
    )
    print(
        f"{who} {gives} "
        f"against an opponent who keeps every size; error bars: superset exploitability "
        f"{result.exploitability_superset:.3f} % pot, final {result.exploitability_final:.3f} "
        f"% pot ({result.resolves} re-solves, {result.seconds:.1f} s)"
    )
