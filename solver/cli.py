"""Command line: ``python -m solver {games,algorithms,solve}``.

``solve --json`` prints one JSON object per line: one per checkpoint (``iteration``,
``elapsed_s``, ``exploitability`` in chips, ``nodes_touched``) and a final one with
``"final": true`` and ``ev`` (player 0's and player 1's expected value in chips under the
average strategies). Bad input prints one line on stderr and exits with code 2.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from typing import NoReturn

from solver.api import Checkpoint, solve
from solver.cfr.rules import RULES, make_rule, rule_defaults
from solver.games import GAMES, make_game

EXIT_USAGE = 2


class UsageError(Exception):
    """Bad input from the command line: reported as one line, exit code 2."""


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
        out[key.strip()] = value
    return out


def _build_parser() -> _Parser:
    parser = _Parser(prog="python -m solver", description="Regret Lab solver")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    sub.add_parser("games", help="list the games")
    sub.add_parser("algorithms", help="list the algorithms with their parameters")
    s = sub.add_parser("solve", help="solve a game")
    s.add_argument("--game", required=True, help=f"one of: {', '.join(GAMES)}")
    s.add_argument("--algorithm", default="dcfr", help="algorithm name (see 'algorithms')")
    s.add_argument("--iterations", type=str, default=None, help="maximum iterations")
    s.add_argument("--target", type=str, default=None, help="stop at this exploitability (chips)")
    s.add_argument("--every", type=str, default="10", help="measure every K iterations")
    s.add_argument("--param", action="append", default=[], help="rule parameter NAME=VALUE")
    s.add_argument("--json", action="store_true", help="JSON lines output")
    return parser


def _int_arg(name: str, raw: str | None, minimum: int) -> int | None:
    if raw is None:
        return None
    try:
        value = int(raw)
    except ValueError:
        raise UsageError(f"{name}: {raw!r} is not a whole number") from None
    if value < minimum:
        raise UsageError(f"{name}: must be ≥ {minimum}, got {value}")
    return value


def _float_arg(name: str, raw: str | None) -> float | None:
    if raw is None:
        return None
    try:
        value = float(raw)
    except ValueError:
        raise UsageError(f"{name}: {raw!r} is not a number") from None
    if not (value > 0) or math.isinf(value):
        raise UsageError(f"{name}: must be a positive number, got {raw!r}")
    return value


def _cmd_games() -> None:
    for name in GAMES:
        g = make_game(name)
        print(f"{name:8s} {g.num_nodes:7d} nodes {g.num_infosets:7d} infosets  {g.description}")


def _cmd_algorithms() -> None:
    for name, cls in RULES.items():
        defaults = rule_defaults(name)
        ps = ", ".join(f"{k}={v:g}" for k, v in defaults.items()) or "-"
        print(f"{name:8s} [{ps}] {cls.description} ({cls.paper})")


def _cmd_solve(args: argparse.Namespace) -> None:
    if args.game.lower() not in GAMES:
        raise UsageError(f"--game: unknown game {args.game!r} (known: {', '.join(GAMES)})")
    if args.algorithm.lower() not in RULES:
        raise UsageError(
            f"--algorithm: unknown algorithm {args.algorithm!r} (known: {', '.join(RULES)})"
        )
    params = _parse_params(args.param)
    try:
        rule = make_rule(args.algorithm, **params)
    except ValueError as exc:
        raise UsageError(f"--param: {exc}") from None
    iterations = _int_arg("--iterations", args.iterations, 0)
    target = _float_arg("--target", args.target)
    every = _int_arg("--every", args.every, 1)
    assert every is not None
    game = make_game(args.game)

    def report(cp: Checkpoint) -> None:
        if args.json:
            print(json.dumps(cp.as_dict()), flush=True)
        else:
            print(
                f"iter {cp.iteration:8d}  {cp.elapsed_s:9.3f} s  "
                f"exploitability {cp.exploitability:.6g} chips",
                flush=True,
            )

    result = solve(
        game,
        rule,
        iterations=iterations,
        target_exploitability=target,
        check_every=every,
        callback=report,
    )
    ev = result.ev
    final = {
        "final": True,
        "game": game.name,
        "algorithm": rule.name,
        "params": rule.params(),
        "iteration": result.iteration,
        "elapsed_s": round(result.elapsed_s, 6),
        "exploitability": result.exploitability,
        "nodes_touched": result.engine.nodes_touched,
        "ev": [ev[0], ev[1]],
        "stopped_by": result.stopped_by,
    }
    if args.json:
        print(json.dumps(final), flush=True)
    else:
        print(
            f"done: {result.iteration} iterations, {result.elapsed_s:.3f} s, "
            f"exploitability {result.exploitability:.6g} chips, "
            f"EV player 0 {ev[0]:+.6f}, player 1 {ev[1]:+.6f}"
        )


def main(argv: Sequence[str] | None = None) -> int:
    parser = _build_parser()
    try:
        args = parser.parse_args(argv)
        if args.command == "games":
            _cmd_games()
        elif args.command == "algorithms":
            _cmd_algorithms()
        else:
            _cmd_solve(args)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    return 0
