"""``python -m solver solve --game kuhn3|leduc3``: a three-player toy game solved by the
engine (:class:`~solver.cfr.multi_engine.MultiEngine`), each check reporting every player's
Nash distance, NashConv and EV of the average profile (docs/multiway.md) — by the engine's
own evaluation and best-response passes, which equal the independent evaluator's
(:mod:`solver.games.nashconv`).

Distances are in chips per game and in % of the pot, the pot being the antes in it before
anyone acts (3 chips in kuhn3 and leduc3). ``--target`` applies to the largest Nash
distance. ``--locks FILE`` locks any player's nodes (:mod:`solver.cli.multi_locks`). Flags
that only mean something for heads-up games (spots, presets, threads, pruning, other
storage, the samplers but external sampling ``mccfr-es``) are refused naming the flag: one
``error:`` line, exit code 2.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Mapping

from solver.cfr.multi_engine import MultiEngine
from solver.cfr.options import OPTION_FIELDS, cli_default, parse_param
from solver.cfr.rules import RULES, Rule, make_rule
from solver.cfr.sampling.multi_es import MultiESEngine
from solver.cli import multi_locks
from solver.cli.args import UsageError, float_arg, int_arg, json_line, params_json
from solver.games.multiway import ANTE, MULTI_GAMES, multi_game
from solver.games.nashconv import NashReport

__all__ = ["DEFAULT_ALGORITHM", "TARGET_CAP", "cmd_solve_multi", "is_multi"]

DEFAULT_ALGORITHM = "dcfr"  # as for the heads-up toy games
# --target without --iterations stops here if the target is never reached: with three
# players CFR carries no guarantee and may level off above any target
TARGET_CAP = 10_000
# the flags solve takes for a three-player game (argparse's names)
_TAKEN = {"command", "game", "algorithm", "iterations", "target", "every", "param", "json",
          "locks"}  # fmt: skip
# option flags allowed at these values (besides their defaults); any --seed for mccfr-es
_ALLOWED = {"threads": {"1"}, "precision": {"auto", "float64"}, "pruning": {"none"}}
ES = "mccfr-es"  # external sampling (solver/cfr/sampling/multi_es.py)


def is_multi(args: argparse.Namespace) -> bool:
    """Whether ``args`` ask for a three-player game (``--game kuhn3`` or ``leduc3``)."""
    game = getattr(args, "game", None)
    return isinstance(game, str) and game.strip().lower() in MULTI_GAMES


def _flag(dest: str) -> str:
    return "--" + dest.replace("_", "-")


def _refuse_heads_up_flags(args: argparse.Namespace, algorithm: str) -> None:
    """A :class:`UsageError` naming the first flag given that a three-player game (or
    ``algorithm`` on it) does not take."""
    options = {row.flag.removeprefix("--").replace("-", "_"): row for row in OPTION_FIELDS}
    if algorithm == ES and args.param:
        raise UsageError(f"--param: {ES} takes no parameters")
    for dest, value in vars(args).items():
        if dest in _TAKEN or value in (None, False, []) or (dest == "seed" and algorithm == ES):
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
    _refuse_heads_up_flags(args, algorithm)
    name = args.game.strip().lower()
    iterations = int_arg("--iterations", args.iterations, 0)
    every = int_arg("--every", args.every, 1)
    assert every is not None
    mg = multi_game(name)
    pot = ANTE * mg.num_players  # the antes: the pot before anyone acts
    target = _target(args.target, pot)
    limit = iterations if iterations is not None else (1000 if target is None else TARGET_CAP)
    engine: MultiEngine | MultiESEngine
    if algorithm == ES:
        engine = MultiESEngine(mg, int_arg("--seed", args.seed, 0) or 0)
        label, params = ES, {}
    else:
        rule = _rule(args, algorithm)
        engine = MultiEngine(mg, rule)
        label, params = rule.name, rule.params()
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
        "players": mg.num_players,
        "pot": pot,
        "algorithm": label,
        "params": params_json(params),
        **rec,
        "stopped_by": "target" if reached else "iterations",
        **multi_locks.locks_fields(locks, mg.num_players),
    }
    if args.json:
        print(json_line(final), flush=True)
        return
    ev = ", ".join(f"player {p} {v:+.6f}" for p, v in enumerate(rep.value))
    print(
        f"done: {engine.iteration} iterations, {rec['elapsed_s']:.3f} s, "
        f"NashConv {rec['nash_conv']:.6g} chips ({rec['nash_conv_pct_pot']:.4f}% pot), EV {ev}"
    )
