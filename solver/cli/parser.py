"""The command line's parser (:mod:`solver.cli` runs the commands): every command's flags,
and the game flags ``solve``, ``race``, ``tree``, ``batch`` and ``drill`` share.
"""

from __future__ import annotations

import argparse
from typing import NoReturn

from solver.batch import cli as batch_cli
from solver.cfr.options import OPTION_FIELDS, cli_default
from solver.cli import drill as drill_cli
from solver.cli import exploit as exploit_cli
from solver.cli import sizes as sizes_cli
from solver.cli.args import UsageError
from solver.cli.race import DEFAULT_RACE
from solver.games import GAMES
from solver.run.race import DEFAULT_ITERATIONS
from solver.run.warmup import GROUPS as WARMUP_GROUPS


class Parser(argparse.ArgumentParser):
    """Usage errors raised as :class:`UsageError` (one line, exit code 2), not printed."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def add_game_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("game (one of --game, --preset, or a custom spot with --board)")
    g.add_argument(
        "--game",
        help=f"a built-in game: {', '.join(GAMES)}, or preflop; solve also takes the "
        "three-player kuhn3 and leduc3 (docs/multiway.md)",
    )
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


def add_three_way_args(s: argparse.ArgumentParser) -> None:
    """``solve``'s three-way river spot (solver/cli/multi.py; docs/multiway.md)."""
    g = s.add_argument_group(
        "three-way river or turn spot (with --players 3 and --board, --pot, --stack; a turn: "
        "--size turn.bets=…, river.raises=… set a street's sizes)"
    )
    g.add_argument(
        "--players", help="2 (default) or 3: a three-way river (five-card --board) or turn spot"
    )
    for k, who in enumerate(("first", "second", "last")):
        g.add_argument(f"--range-{k}", help=f"player {k}'s range ({who} to act)")


def add_solve_args(s: argparse.ArgumentParser) -> None:
    """The flags of ``solve`` beside the game's (``exploit`` takes them too)."""
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
    s.add_argument("--param", action="append", default=[], help="rule parameter NAME=VALUE")
    for row in OPTION_FIELDS:  # every solver option's flag, from the one table
        if row.widget == "checkbox":
            s.add_argument(row.flag, action="store_true", help=row.help)
        elif row.widget == "file":
            s.add_argument(row.flag, metavar="FILE.json", help=row.help)
        else:
            s.add_argument(row.flag, default=cli_default(row), help=row.help)
    s.add_argument("--json", action="store_true", help="JSON lines output")


def build_parser() -> Parser:
    """The parser of every ``python -m solver`` command."""
    parser = Parser(prog="python -m solver", description="Regret Lab solver")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    sub.add_parser("games", help="list the games")
    sub.add_parser("algorithms", help="list the algorithms with their parameters")
    sub.add_parser("presets", help="list the presets")
    s = sub.add_parser("solve", help="solve a game, preset or hold'em spot")
    add_game_args(s)
    add_solve_args(s)
    add_three_way_args(s)
    r = sub.add_parser("race", help="race several algorithms on one game (fair CPU sharing)")
    add_game_args(r)
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
    add_game_args(t)
    t.add_argument("--json", action="store_true", help="JSON output")
    w = sub.add_parser(
        "warmup", help="compile every kernel variant once (fills Numba's on-disk cache)"
    )
    w.add_argument("--jobs", default="2", help="processes compiling at once (default 2)")
    w.add_argument("--group", choices=WARMUP_GROUPS, help=argparse.SUPPRESS)
    batch_cli.add_commands(sub, add_game_args)
    drill_cli.add_command(sub, add_game_args)
    exploit_cli.add_command(sub, add_game_args, add_solve_args)
    sizes_cli.add_command(sub, add_game_args)
    return parser


# Spot flags → HoldemSpec fields (solver.games.spec.SPOT_FIELDS): only with --board; the
# rake flags with --board, or over a hold'em --preset's own
