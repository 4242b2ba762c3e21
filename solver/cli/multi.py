"""``python -m solver solve --game kuhn3|leduc3``: a three-player toy game solved by the
engine (:class:`~solver.cfr.multi_engine.MultiEngine`), each check reporting every player's
Nash distance, NashConv and EV of the average profile (docs/multiway.md) — by the engine's
own evaluation and best-response passes, which equal the independent evaluator's
(:mod:`solver.games.nashconv`). ``solve --players 3 --board … --range-0 … --range-1 …
--range-2 …`` does the same for a three-way hold'em river spot
(:class:`~solver.cfr.holdem3_engine.River3Engine`: terminals by the strength-order sweep),
and with a four-card ``--board`` for a three-way turn spot (the river dealt by a chance node,
:mod:`solver.cfr.holdem3_turn_build`; ``--size river.bets=…`` and the like set a street's
sizes apart).

Distances are in chips per game and in % of the pot, the pot being the chips in it before
anyone acts (the antes, 3 chips, in kuhn3 and leduc3; ``--pot`` on a river spot).
``--target`` applies to the largest Nash distance. ``--locks FILE`` locks any player's nodes
of kuhn3, leduc3 and the river and turn spots (:mod:`solver.cli.multi_locks`). Flags that only
mean something for heads-up games (spots, presets, threads, pruning, other storage, the
samplers but external sampling ``mccfr-es``, which a river spot does not take either) are
refused naming the flag: one ``error:`` line, exit code 2.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Mapping

from solver.cfr.holdem3_engine import River3Engine
from solver.cfr.holdem3_turn_build import build_turn3
from solver.cfr.multi_engine import MultiEngine
from solver.cfr.options import OPTION_FIELDS, cli_default, parse_param
from solver.cfr.rules import RULES, Rule, make_rule
from solver.cfr.sampling.multi_es import MultiESEngine
from solver.cli import multi_locks
from solver.cli.args import UsageError, float_arg, int_arg, json_line, params_json
from solver.games.holdem3 import River3Spec, checked
from solver.games.holdem3_turn import Turn3Spec, checked_turn
from solver.games.multiway import ANTE, MULTI_GAMES, multi_game
from solver.games.nashconv import NashReport
from solver.games.spec import SpecError
from solver.poker.cards import parse_board

__all__ = ["DEFAULT_ALGORITHM", "TARGET_CAP", "cmd_solve_multi", "is_multi"]

DEFAULT_ALGORITHM = "dcfr"  # as for the heads-up toy games
# --target without --iterations stops here if the target is never reached: with three
# players CFR carries no guarantee and may level off above any target
TARGET_CAP = 10_000
# the flags solve takes for a three-player game (argparse's names)
_TAKEN = {"command", "game", "algorithm", "iterations", "target", "every", "param", "json",
          "locks", "players"}  # fmt: skip
# option flags allowed at these values (besides their defaults); any --seed for mccfr-es
_ALLOWED = {"threads": {"1"}, "precision": {"auto", "float64"}, "pruning": {"none"}}
ES = "mccfr-es"  # external sampling (solver/cfr/sampling/multi_es.py)
# a three-way river spot's flags (argparse's names) and the River3Spec field of each
_RIVER3 = {
    "board": "board",
    "pot": "pot",
    "stack": "stack",
    "range_0": "range0",
    "range_1": "range1",
    "range_2": "range2",
    "bets": "bets",
    "raises": "raises",
    "raise_cap": "raise_cap",
    "big_blind": "big_blind",
    "max_memory_mb": "max_memory_mb",
}
_RANGES = ("range_0", "range_1", "range_2")
# a turn spot's --size STREET.KIND=SIZES: the Turn3Spec field of each
_STREET_SIZES = {
    "turn.bets": "bets",
    "turn.raises": "raises",
    "river.bets": "river_bets",
    "river.raises": "river_raises",
}


def is_multi(args: argparse.Namespace) -> bool:
    """Whether ``args`` ask for a three-player game (``--game kuhn3`` or ``leduc3``), or a
    three-way spot (``--players`` other than 2, or a ``--range-K``: refused or solved by
    :func:`cmd_solve_multi`)."""
    game = getattr(args, "game", None)
    players = getattr(args, "players", None)
    if players is not None and players.strip() != "2":
        return True
    if any(getattr(args, r, None) is not None for r in _RANGES):
        return True
    return isinstance(game, str) and game.strip().lower() in MULTI_GAMES


def _river3(args: argparse.Namespace) -> bool:
    """Whether ``args`` ask for a three-way river spot (else a toy game, ``--game``); a
    :class:`UsageError` for ``--players`` other than 2 or 3 or spot flags without it."""
    players = args.players.strip() if args.players is not None else None
    if players not in (None, "2", "3"):
        raise UsageError(f"--players: expected 2 or 3, got {args.players!r:.40}")
    if players != "3":
        given = [r for r in _RANGES if getattr(args, r) is not None]
        if given:
            raise UsageError(f"{_flag(given[0])}: only with --players 3")
        return False
    if args.game is not None:
        raise UsageError(
            "--game: not with --players 3 (kuhn3 and leduc3 are three-player games by "
            "themselves; --players 3 solves a river spot from --board and --range-0/1/2)"
        )
    for need in ("board", "pot", "stack", *_RANGES):
        if getattr(args, need) is None:
            raise UsageError(f"{_flag(need)}: required with --players 3")
    return True


def _river3_spec(args: argparse.Namespace) -> River3Spec:
    """The spot the flags describe (its checks: :func:`solver.games.holdem3.validate`)."""
    given = {field: getattr(args, dest) for dest, field in _RIVER3.items()}
    values: dict[str, object] = {k: v for k, v in given.items() if v is not None}
    for dest, flag_field in (("pot", "pot"), ("stack", "stack"), ("big_blind", "big_blind"),
                             ("max_memory_mb", "max_memory_mb")):  # fmt: skip
        if flag_field in values:
            values[flag_field] = float_arg(_flag(dest), str(values[flag_field]))
    if "raise_cap" in values:
        values["raise_cap"] = int_arg("--raise-cap", str(values["raise_cap"]), 0)
    return River3Spec(**values)  # type: ignore[arg-type]


def _is_turn(args: argparse.Namespace) -> bool:
    """Whether the spot's board has four cards (a turn; a board that does not parse is left
    to the river spot's checks, which name it)."""
    try:
        return len(parse_board(str(args.board))) == 4
    except ValueError:
        return False


def _turn3_spec(args: argparse.Namespace) -> Turn3Spec:
    """The turn spot the flags describe: the river spot's flags, and ``--size STREET.KIND=SIZES``
    (STREET turn or river, KIND bets or raises) setting one street's sizes apart."""
    river = _river3_spec(args)
    values: dict[str, object] = {
        name: getattr(river, name)
        for name in ("board", "range0", "range1", "range2", "pot", "stack", "bets", "raises",
                     "raise_cap", "big_blind", "max_memory_mb")
    }  # fmt: skip
    values["name"] = "three-way turn"
    street: dict[str, str] = {}
    for item in args.size:
        key, sep, text = item.partition("=")
        key = key.strip().lower()
        if not sep or key not in _STREET_SIZES:
            raise UsageError(
                f"--size {item!r:.60}: expected STREET.KIND=SIZES with STREET turn or river and "
                "KIND bets or raises, e.g. river.bets='75%, a' (every player has the same sizes)"
            )
        street[_STREET_SIZES[key]] = text.strip()
    for kind in ("bets", "raises"):  # the river keeps --bets/--raises when the turn's differ
        values[f"river_{kind}"] = street.get(f"river_{kind}", values[kind])
        values[kind] = street.get(kind, values[kind])
    return Turn3Spec(**values)  # type: ignore[arg-type]


def _spec_flag(exc: SpecError, args: argparse.Namespace) -> str:
    """The flag of a River3Spec or Turn3Spec field (its message otherwise as is)."""
    by_field = {field: _flag(dest) for dest, field in _RIVER3.items()}
    by_field.update({f: f"--size {k}" for k, f in _STREET_SIZES.items() if f.startswith("river")})
    for item in args.size:  # the turn's sizes from --size turn.KIND
        key = item.partition("=")[0].strip().lower()
        if key in ("turn.bets", "turn.raises") and _STREET_SIZES[key] == exc.field:
            by_field[exc.field] = f"--size {key}"
    return f"{by_field.get(exc.field, exc.field)}: {exc.message}"


def _flag(dest: str) -> str:
    return "--" + dest.replace("_", "-")


def _refuse_heads_up_flags(args: argparse.Namespace, algorithm: str, river3: bool) -> None:
    """A :class:`UsageError` naming the first flag given that a three-player game (or
    ``algorithm`` on it) does not take (``river3``: a river spot, which takes its flags)."""
    options = {row.flag.removeprefix("--").replace("-", "_"): row for row in OPTION_FIELDS}
    if algorithm == ES and args.param:
        raise UsageError(f"--param: {ES} takes no parameters")
    if algorithm == ES and river3:
        raise UsageError(f"--algorithm: {ES} runs on kuhn3 and leduc3, not on river spots yet")
    taken = _TAKEN | set(_RIVER3) | {"size"} if river3 else _TAKEN
    for dest, value in vars(args).items():
        if dest in taken or value in (None, False, []) or (dest == "seed" and algorithm == ES):
            continue
        row = options.get(dest)
        if row is not None:
            text = str(value).strip().lower()
            if text == cli_default(row) or text in _ALLOWED.get(row.field, set()):
                continue
            if dest == "seed":
                raise UsageError(f"--seed: only with --algorithm {ES} on three-player games")
            raise UsageError(
                f"{row.flag}: not for three-player games ({args.game} runs on one thread, "
                "float64 storage, every subtree walked)"
            )
        raise UsageError(f"{_flag(dest)}: not for three-player games (heads-up only)")


def _algorithm(args: argparse.Namespace) -> str:
    name = (args.algorithm or DEFAULT_ALGORITHM).strip().lower()
    if name not in RULES and name != ES:
        raise UsageError(
            f"--algorithm: {name!r} is not for three-player games (the full-width rules: "
            f"{', '.join(RULES)}; or {ES})"
        )
    return name


def _rule(args: argparse.Namespace, name: str) -> Rule:
    params: dict[str, float] = {}
    for item in args.param:
        key, sep, raw = item.partition("=")
        if not sep:
            raise UsageError(f"--param {item!r}: expected NAME=NUMBER, e.g. alpha=1.5")
        try:
            params[key.strip()] = parse_param(raw)
        except ValueError as exc:
            raise UsageError(f"--param {item!r}: {exc}") from None
    try:
        return make_rule(name, **params)
    except ValueError as exc:
        raise UsageError(f"--param: {exc}") from None


def _target(raw: str | None, pot: float) -> float | None:
    """``--target`` in chips: a number of chips, or a percentage of ``pot``."""
    if raw is None:
        return None
    text = raw.strip()
    if text.endswith("%"):
        pct = float_arg("--target", text[:-1])
        assert pct is not None
        return pct / 100.0 * pot
    return float_arg("--target", text)


def check_record(
    iteration: int, elapsed: float, rep: NashReport, pot: float, nodes: int
) -> dict[str, object]:
    """One check as its JSON line's fields: per player (lists, player 0 first) the Nash
    distance in chips and in % of ``pot``, the EV in chips; NashConv."""
    dist = [float(x) for x in rep.nash_distance]
    return {
        "iteration": iteration,
        "elapsed_s": round(elapsed, 6),
        "nash_distance": dist,
        "nash_distance_pct_pot": [100.0 * x / pot for x in dist],
        "nash_conv": float(rep.nash_conv),
        "nash_conv_pct_pot": 100.0 * float(rep.nash_conv) / pot,
        "ev": [float(x) for x in rep.value],
        "nodes_touched": nodes,
    }


def _text(rec: Mapping[str, object]) -> str:
    dist = rec["nash_distance"]
    pct = rec["nash_distance_pct_pot"]
    assert isinstance(dist, list) and isinstance(pct, list)
    each = ", ".join(f"{d:.6g} ({p:.4f}%)" for d, p in zip(dist, pct, strict=True))
    return (
        f"iter {rec['iteration']:8d}  {rec['elapsed_s']:9.3f} s  "
        f"NashConv {rec['nash_conv']:.6g} chips  Nash distance per player {each}"
    )


def cmd_solve_multi(args: argparse.Namespace) -> None:
    """``solve`` on a three-player game (module docstring)."""
    algorithm = _algorithm(args)
    river3 = _river3(args)
    _refuse_heads_up_flags(args, algorithm, river3)
    iterations = int_arg("--iterations", args.iterations, 0)
    every = int_arg("--every", args.every, 1)
    assert every is not None
    spot: dict[str, object] = {}
    engine: MultiEngine | MultiESEngine
    if river3:
        rule = _rule(args, algorithm)
        turn = _is_turn(args)
        if args.size and not turn:
            raise UsageError("--size: only on three-way turn spots (a four-card --board)")
        try:  # every field checked, the tree and the memory it needs, before any is made
            if turn:
                tsetup, _plan, test = checked_turn(_turn3_spec(args))
                nodes, hands, mb = test.nodes, test.hands, test.memory_mb
                pot = float(tsetup.base.config.pot)
            else:
                setup, _tree, est = checked(_river3_spec(args))
                nodes, hands, mb = est.nodes, est.hands, est.memory_mb
                pot = float(setup.config.pot)
        except SpecError as exc:
            raise UsageError(_spec_flag(exc, args)) from None
        name, players = ("turn3" if turn else "river3"), 3
        spot = {"board": args.board.strip(), "hands": list(hands), "nodes": nodes,
                "memory_mb": round(mb, 3)}  # fmt: skip
        if not args.json:
            street = "turn" if turn else "river"
            print(f"three-way {street}: {nodes:,} nodes, hands {hands}, {mb:.1f} MB",
                  flush=True)  # fmt: skip
        engine = River3Engine(build_turn3(tsetup) if turn else setup, rule)
        label, params = rule.name, rule.params()
    else:
        name = args.game.strip().lower()
        mg = multi_game(name)
        players = mg.num_players
        pot = ANTE * mg.num_players  # the antes: the pot before anyone acts
        if algorithm == ES:
            engine = MultiESEngine(mg, int_arg("--seed", args.seed, 0) or 0)
            label, params = ES, {}
        else:
            rule = _rule(args, algorithm)
            engine = MultiEngine(mg, rule)
            label, params = rule.name, rule.params()
    target = _target(args.target, pot)
    limit = iterations if iterations is not None else (1000 if target is None else TARGET_CAP)
    locks = multi_locks.apply_locks(args, engine)  # (before any check: a bad file solves nothing)
    started = time.perf_counter()

    def check() -> tuple[dict[str, object], NashReport]:
        """The check of the average profile now, printed."""
        rep = engine.measure()  # (= nashconv.nash_report's: tests/test_multi_engine.py)
        rec = check_record(engine.iteration, time.perf_counter() - started, rep, pot,
                           engine.nodes_touched)  # fmt: skip
        print(json_line(rec) if args.json else _text(rec), flush=True)
        return rec, rep

    rec, rep = check()
    reached = target is not None and float(rep.nash_distance.max()) <= target
    while engine.iteration < limit and not reached:
        engine.iterate(min(every, limit - engine.iteration))
        rec, rep = check()
        reached = target is not None and float(rep.nash_distance.max()) <= target
    final = {
        "final": True,
        "game": name,
        "players": players,
        "pot": pot,
        **spot,
        "algorithm": label,
        "params": params_json(params),
        **rec,
        "stopped_by": "target" if reached else "iterations",
        **multi_locks.locks_fields(locks, players),
    }
    if args.json:
        print(json_line(final), flush=True)
        return
    ev = ", ".join(f"player {p} {v:+.6f}" for p, v in enumerate(rep.value))
    print(
        f"done: {engine.iteration} iterations, {rec['elapsed_s']:.3f} s, "
        f"NashConv {rec['nash_conv']:.6g} chips ({rec['nash_conv_pct_pot']:.4f}% pot), EV {ev}"
    )
