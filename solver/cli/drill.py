"""``python -m solver drill``: practise a solve with an automatic answerer and print the score
(:mod:`solver.study.trainer`; docs/trainer.md).

The spot is a game, preset or hold'em spot as for ``solve`` (solved here with ``--iterations``
or to ``--target``), a save file (``--load FILE.npz``, as the app's Export page writes) or a
flop of a batch database saved with its solves (``--batch DB --flop Ks9s5s``).
``--player oop|ip`` is the hero, ``--line "k b:100"`` the node the drill is about (its labels
from the root, space-separated; default the root) and ``--scope node|street|hand`` how much
is played (default ``node`` with ``--line``, else ``hand``). ``--hands N`` decisions are played
with ``--answer best|solution|uniform`` (the highest-EV action, a draw from the hand's mix, a
uniform draw); ``--seed`` fixes the deals. Filters: ``--classes top_pair,oesd``, ``--cells
AA,AKs``, ``--min-reach 20`` (%); ``--suits`` shows the deals under random suit
permutations; ``--rng-mode`` grades as the app's RNG mode.

Output: one line per decision and the score; with ``--json`` one JSON object per decision
(``hand``, ``line``, ``action``, ``mix`` and ``evs`` as {action: value}, EVs in chips,
``ev_lost`` chips, ``grade``, and the rest of :meth:`solver.study.grading.Decision.row`) and a final
line with ``"final": true``, ``decisions``, ``hands``, ``ev_lost_total``,
``ev_lost_per_decision``, ``ev_lost_per_hand`` (chips), ``pct_pot_per_decision``, ``grades``
{grade: count}, ``off_tree`` (decisions where the solution never gets with the hand),
``exploitability`` (chips, of the strategy practised) and ``iteration``. A decision off the
solution's tree (an earlier action the solution never takes with the hand) has ``"off_tree":
true`` and a mix of nulls, is graded by EV lost alone, and its text line says so.
Bad input: one line naming the flag, exit code 2.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.cli.args import UsageError, float_arg, json_line, load_saved
from solver.cli.args import target as target_arg
from solver.games.model import DECISION, Game

Solved = tuple[Game, npt.NDArray[np.float64], int, float | None]

MAX_DECISIONS = 100_000
OFF_TREE = "the solution never gets here with this hand: graded by EV lost alone"


def add_command(sub: Any, add_game_args: Callable[[argparse.ArgumentParser], None]) -> None:
    """Register ``drill`` on the CLI's subparsers (``add_game_args``: the shared spot flags)."""
    from solver.study.trainer import ANSWERS, SCOPES

    d = sub.add_parser("drill", help="practise a solve with an automatic answerer; print the score")
    add_game_args(d)
    d.add_argument("--load", metavar="FILE.npz", help="a saved solve instead of a spot")
    d.add_argument("--batch", metavar="DB", help="a batch database whose --flop is practised")
    d.add_argument("--flop", help="with --batch: the flop (its saved solve), e.g. Ks9s5s")
    d.add_argument("--iterations", help="iterations of the solve (default 200)")
    d.add_argument("--target", help="solve to this exploitability (chips, or %% of the pot)")
    d.add_argument("--player", default="oop", help="the hero: oop (default) or ip")
    d.add_argument("--line", help="the node drilled: its labels from the root, e.g. 'k b:100'")
    d.add_argument("--scope", help=f"{', '.join(SCOPES)} (default: node with --line, else hand)")
    d.add_argument("--hands", default="20", help="decisions to play (default 20)")
    d.add_argument("--answer", default="solution", help=f"{', '.join(ANSWERS)} (default solution)")
    d.add_argument("--seed", default="0", help="the deals' seed (default 0)")
    d.add_argument("--classes", help="deal only these hand classes, e.g. top_pair,flush_draw")
    d.add_argument("--cells", help="deal only these grid cells, e.g. AA,AKs,T9o (toy: cards)")
    d.add_argument("--min-reach", help="deal only hands reaching the spot ≥ this %% of the time")
    d.add_argument("--suits", action="store_true", help="show deals under random suit permutations")
    d.add_argument("--rng-mode", action="store_true", help="Best is a draw from the mix")
    d.add_argument("--json", action="store_true", help="JSON lines output")


def _usage(message: str) -> Exception:
    return UsageError(message)


def _whole(flag: str, raw: str, low: int, high: int) -> int:
    try:
        value = int(raw)
    except ValueError:
        raise _usage(f"{flag}: {raw!r} is not a whole number") from None
    if not low <= value <= high:
        raise _usage(f"{flag}: must be between {low} and {high:,}, got {value}")
    return value


def _solved(
    args: argparse.Namespace, game_from_args: Callable[[argparse.Namespace], Game]
) -> Solved:
    """(game, sigma, iteration, exploitability in chips or None) from --load or a solve."""
    from solver.api import solve

    if args.batch is not None or args.flop is not None:
        return _batch_flop(args)
    if args.load is not None:
        if any(x is not None for x in (args.game, args.preset, args.board)):
            raise _usage("--load: give either --load or a game, preset or spot, not both")
        if args.iterations is not None or args.target is not None:
            raise _usage("--load: a saved solve is practised as saved (no --iterations, --target)")
        loaded = load_saved(args.load)
        history = loaded.history
        exploitability = float(history[-1].exploitability) if history else None
        engine = loaded.engine
        return loaded.game, engine.average_strategy(), int(engine.iteration), exploitability
    game = game_from_args(args)
    iterations = _whole("--iterations", args.iterations or "200", 1, 10_000_000)

    target = target_arg(args.target, game)
    result = solve(game, iterations=iterations, target_exploitability=target)
    return game, result.average_strategy(), result.iteration, result.exploitability


def _batch_flop(args: argparse.Namespace) -> Solved:
    """The saved solve of ``--flop`` in the batch database ``--batch`` (the Reports page's
    *Open in Explore* file), read only from the database's own ``.solves`` folder."""
    from pathlib import Path

    from solver.batch.solvefiles import load_flop_solve
    from solver.batch.spec import BatchError
    from solver.batch.store import BatchStore

    if args.batch is None or args.flop is None:
        raise _usage(f"{'--flop' if args.batch is None else '--batch'}: needs --batch and --flop")
    others = [f for f in ("game", "preset", "board", "load", "iterations", "target")
              if getattr(args, f) is not None]  # fmt: skip
    if others:
        raise _usage(f"--batch: a batch flop is practised as saved (not with --{others[0]})")
    try:
        with BatchStore.open(args.batch) as store:
            files = {r.flop: r.solve_file for r in store.rows("done") if r.solve_file}
            spec = store.spec
    except BatchError as exc:
        raise _usage(f"--batch: {exc.message}") from None
    flop = "".join(str(args.flop).split())
    if flop not in files:
        some = ", ".join(list(files)[:8]) or "none: run the batch with --save-solves"
        raise _usage(f"--flop: no saved solve of {flop!r} in this batch (saved: {some})")
    try:  # from the database's own .solves folder, and only a save of this flop's spot
        loaded = load_flop_solve(Path(args.batch), flop, files[flop], spec)
    except BatchError as exc:
        raise _usage(f"--flop: cannot open {flop}'s solve ({exc.message})") from None
    history = loaded.history
    exploitability = float(history[-1].exploitability) if history else None
    return (
        loaded.game,
        loaded.engine.average_strategy(),
        int(loaded.engine.iteration),
        exploitability,
    )


def _items(raw: str | None) -> tuple[str, ...]:
    return tuple(x.strip() for x in (raw or "").split(",") if x.strip())


def _node(game: Game, line: str | None) -> int:
    if line is None:
        return 0
    from solver.lockspec import parse_line

    try:
        return game.locate(list(parse_line(line)))[0]
    except KeyError as exc:
        raise _usage(f"--line: {str(exc).strip(chr(39) + chr(34))}") from None


def cmd_drill(
    args: argparse.Namespace, game_from_args: Callable[[argparse.Namespace], Game]
) -> int:
    """Run ``drill`` (arguments parsed by :func:`add_command`'s parser)."""
    from solver.study.dealing import FilterError
    from solver.study.trainer import ANSWERS, SCOPES, DealFilter, Drill, play

    player = {"oop": 0, "ip": 1, "0": 0, "1": 1}.get(str(args.player).strip().lower())
    if player is None:
        raise _usage(f"--player: {args.player!r} is not oop or ip")
    answer = str(args.answer).strip().lower()
    if answer not in ANSWERS:
        raise _usage(f"--answer: {args.answer!r} is not one of {', '.join(ANSWERS)}")
    scope = (args.scope or ("node" if args.line is not None else "hand")).strip().lower()
    if scope not in SCOPES:
        raise _usage(f"--scope: {args.scope!r} is not one of {', '.join(SCOPES)}")
    hands = _whole("--hands", args.hands, 1, MAX_DECISIONS)
    seed = _whole("--seed", args.seed, 0, 2**63 - 1)
    min_reach = float_arg("--min-reach", args.min_reach, zero=True) or 0.0
    if min_reach > 100:
        raise _usage(f"--min-reach: a percentage up to 100, got {min_reach:g}")
    deal_filter = DealFilter(_items(args.classes), _items(args.cells), min_reach)
    game, sigma, iteration, exploitability = _solved(args, game_from_args)
    node = _node(game, args.line)
    if scope == "node" and (
        game.tree.kind[node] != DECISION or int(game.tree.player[node]) != player
    ):
        who = "oop" if player == 0 else "ip"
        raise _usage(f"--line: {args.line or 'root'!r} is not a decision of the {who} player")
    try:
        drill = Drill(game, sigma, player, scope, node, rng_mode=args.rng_mode, seed=seed,
                      deal_filter=deal_filter, suits=args.suits)  # fmt: skip
        decisions = play(drill, answer, hands)
    except FilterError as exc:
        flag = {"classes": "--classes", "cells": "--cells"}.get(exc.field, "--min-reach")
        raise _usage(f"{flag}: {exc}") from None
    except ValueError as exc:  # nothing to deal (the filter's words), or the hero never acts
        raise _usage(f"cannot drill this: {exc}") from None
    bb = game.big_blind
    for d in decisions:
        row = d.row(bb)
        if args.json:
            row["hand"] = d.shown_hand  # as shown (the solve's own: "solve_hand")
            row["solve_hand"] = d.hand
            print(json_line(row), flush=True)
        else:
            pct = d.ev_lost_pct_pot
            board = f" on {''.join(d.shown_board)}" if d.shown_board else ""
            print(
                f"#{d.hand_no:<4d} {d.shown_hand}{board}, {d.line or 'start'}: "
                f"{d.names[d.chosen]} — {d.grade}, EV lost {d.ev_lost:.4g} chips"
                + (f" ({pct:.2f} % pot)" if math.isfinite(pct) else "")
                + (f" ({OFF_TREE})" if d.off_tree else "")
            )
    s = drill.score()
    final = {
        "final": True,
        "game": game.name,
        "player": player,
        "scope": scope,
        "answer": answer,
        "decisions": s.decisions,
        "hands": s.hands,
        "skipped": drill.skipped,
        "ev_lost_total": s.ev_lost,
        "ev_lost_per_decision": s.ev_lost_per_decision,
        "ev_lost_per_hand": s.ev_lost_per_hand,
        "pct_pot_per_decision": s.pct_pot_per_decision,
        "grades": s.grades,
        "off_tree": sum(d.off_tree for d in decisions),
        "iteration": iteration,
        "exploitability": exploitability,
    }
    if args.json:
        print(json_line(final), flush=True)
    else:
        grades = ", ".join(f"{k} {v}" for k, v in s.grades.items())
        print(
            f"score: {s.decisions} decisions in {s.hands} hands, EV lost {s.ev_lost:.4g} chips "
            f"({s.ev_lost_per_decision:.4g} per decision, {s.pct_pot_per_decision:.3f} % pot); "
            f"{grades}"
        )
    return 0
