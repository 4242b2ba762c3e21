"""A hold'em subgame as a person describes it (:class:`HoldemSpec`), the limits every field
must keep, and :func:`validate`, which checks every field and turns the spec into a
:class:`HoldemSetup` (parsed board, range weights and the betting config).

Whatever a field holds — text where a number belongs, ``1e308``, NaN, a list, a table nested
a thousand deep — :func:`validate` answers with a :class:`SpecError` naming the field, never
another exception. The limits (``docs/input-limits.md`` explains each):

* pot, stack, big blind and chip sizes: at most :data:`MAX_CHIPS` chips;
* stack: at most :data:`MAX_STACK_BB` big blinds;
* raise cap: at most :data:`MAX_RAISE_CAP` raises per street;
* memory cap: at most this machine's memory (:func:`machine_memory_mb`);
* rake: 0 to 100 % of the pot, a cap of 0 (none) to :data:`MAX_CHIPS` chips;
* range text: at most :data:`MAX_RANGE_TEXT` characters; a name at most :data:`MAX_NAME`.

How big the tree may grow is checked while it is built (:mod:`solver.tree.betting`,
:func:`solver.games.holdem.estimate`), not here.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from solver.poker.cards import COMBOS, parse_board
from solver.poker.ranges import parse_range
from solver.quoting import brief
from solver.tree.betting import STREETS, BettingConfig, PlayerSizes
from solver.tree.sizes import SizeError, parse_sizes

PLAYERS = ("oop", "ip")
KINDS = ("bets", "raises", "donks")
MAX_CHIPS = 1_000_000_000
"""Largest pot, stack or big blind (chips): amounts stay exact whole numbers in float64."""
MAX_STACK_BB = 1_000_000
"""Largest stack in big blinds (the smallest bet is one big blind). 1,000,000 since the default
big blind became 10 chips (it was 100,000 with a default of 100): every stack valid at the old
default stays valid."""
MAX_RAISE_CAP = 50
"""Most raises per street a spec may allow (the Libratus spots use 20)."""
MAX_RANGE_TEXT = 100_000
"""Longest range text (characters); the longest canonical range text is about 25,000."""
MAX_NAME = 200
"""Longest spot name (characters)."""
DEFAULT_MAX_MEMORY_MB = 4096.0
"""Memory a solve may need unless the user says otherwise (MB)."""


class SpecError(ValueError):
    """Bad input in a subgame spec. ``field`` names the input; the message says what is wrong."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


@dataclass
class HoldemSpec:
    """A subgame as a person describes it. Sizes use the solver syntax (33%, 2.5x, a, 3e,
    120c); ``sizes[street][player][kind]`` overrides ``bets``/``raises``/``donks`` where
    given (street: flop/turn/river, player: oop/ip, kind: bets/raises/donks)."""

    board: str
    pot: float
    stack: float
    oop_range: str
    ip_range: str
    bets: str = "50%, 100%, a"
    raises: str = "100%, a"
    donks: str | None = None
    sizes: dict[str, dict[str, dict[str, str]]] = field(default_factory=dict)
    big_blind: float = 10.0  # chips: the smallest bet; the srp presets use 10
    raise_cap: int = 3
    add_allin_threshold: float = 0.0
    force_allin_threshold: float = 0.0
    merging_threshold: float = 0.0
    max_memory_mb: float = DEFAULT_MAX_MEMORY_MB
    name: str = "hold'em subgame"
    oop_weights: list[float] | None = None  # 1,326 weights (combo order); overrides oop_range
    ip_weights: list[float] | None = None
    isomorphism: bool = True  # deal one card per class of interchangeable suits
    collapse_runouts: bool = True  # all-in before the river: one terminal with runout equities
    # Rake, as Pio, GTO+ and Desktop Postflop take it: ``rake_pct`` percent (0 to 100; text
    # may end in "%": "5%" is 5) of the pot at every fold and showdown (a subgame's pot has
    # seen the flop; a fold rakes the matched pot, the uncalled chips go back), at most
    # ``rake_cap`` chips (0: no cap). 0 % is no rake: the numbers of a spot without one.
    rake_pct: float | str = 0.0
    rake_cap: float = 0.0


class SpotField(NamedTuple):
    """A :class:`HoldemSpec` field a person sets one value of: ``field`` the spec's name,
    ``flag`` the CLI's (``--max-memory-mb`` is ``max_memory_mb``), ``form`` the app's form
    key (its widget is ``hs_<form>``)."""

    field: str
    flag: str
    form: str


# Every such field once, in the app's form order: the CLI's spot flags and the app's form
# fields are read from here
SPOT_FIELDS = tuple(
    SpotField(f, flag, form)
    for f, flag, form in (
        ("board", "board", "board"),
        ("pot", "pot", "pot"),
        ("stack", "stack", "stack"),
        ("big_blind", "big_blind", "big_blind"),
        ("bets", "bets", "bets"),
        ("raises", "raises", "raises"),
        ("donks", "donks", "donks"),
        ("raise_cap", "raise_cap", "raise_cap"),
        ("add_allin_threshold", "add_allin", "add_allin"),
        ("force_allin_threshold", "force_allin", "force_allin"),
        ("merging_threshold", "merging", "merging"),
        ("max_memory_mb", "max_memory_mb", "max_memory"),
        ("rake_pct", "rake", "rake"),
        ("rake_cap", "rake_cap", "rake_cap"),
        ("oop_range", "oop_range", "oop_range"),
        ("ip_range", "ip_range", "ip_range"),
    )
)
RAKE_FIELDS = ("rake_pct", "rake_cap")


@dataclass
class HoldemSetup:
    """A validated spec: parsed board, range weights (1326,) and the betting config."""

    spec: HoldemSpec
    board: tuple[int, ...]
    weights: tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]
    config: BettingConfig


def machine_memory_mb() -> float:
    """This machine's physical memory (MB); infinity where the system does not say."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**20
    except (AttributeError, ValueError, OSError):
        return math.inf


def _number(
    field_name: str,
    value: Any,
    *,
    positive: bool = True,
    minimum: float = 0.0,
    maximum: float = math.inf,
    whole: bool = False,
    unit: str = "",
) -> float:
    """``value`` as a finite float within the bounds; text (from the CLI) is parsed."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(
        value, (int, float, str, np.integer, np.floating)
    ):
        raise SpecError(field_name, f"must be a number, got {brief(value)}")
    if isinstance(value, str) and len(value) > 100:
        raise SpecError(field_name, f"{brief(value)} is not a number")
    try:
        x = float(value)
    except ValueError:
        raise SpecError(field_name, f"{brief(value)} is not a number") from None
    except OverflowError:  # an int past float's range
        raise SpecError(field_name, f"too large (at most {maximum:,.0f}{unit})") from None
    if not math.isfinite(x):
        raise SpecError(field_name, f"{brief(value)} is not a finite number")
    if positive and x <= 0:
        raise SpecError(field_name, f"must be positive, got {brief(value)}")
    if x < minimum:
        raise SpecError(field_name, f"must be ≥ {minimum:g}, got {brief(value)}")
    if x > maximum:
        raise SpecError(field_name, f"{x:,.6g}{unit} is too large (at most {maximum:,.0f}{unit})")
    if whole and x != int(x):
        kind = "whole chips" if unit == " chips" else "a whole number"
        raise SpecError(field_name, f"must be {kind}, got {brief(value)}")
    return x


def _percent_text(value: object) -> object:
    """A percentage as text may end in "%" ("5%", "2.5 %"): the number before it."""
    if isinstance(value, str) and len(value) <= 100 and value.strip().endswith("%"):
        return value.strip()[:-1].strip()
    return value


def _weights(field_name: str, given: object) -> npt.NDArray[np.float64]:
    """1,326 weights in [0, 1], checked for length before anything is converted."""
    n = len(COMBOS)
    if isinstance(given, np.ndarray):
        if given.shape != (n,):
            raise SpecError(field_name, f"needs {n} weights, got shape {given.shape}")
    elif not isinstance(given, (list, tuple)):
        raise SpecError(field_name, f"must be a list of {n} numbers, got {brief(given)}")
    elif len(given) != n:
        raise SpecError(field_name, f"needs {n} weights, got {len(given)}")
    elif not all(
        isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool)
        for x in given
    ):
        raise SpecError(field_name, "must be a list of numbers")
    try:
        w = np.asarray(given, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise SpecError(field_name, "must be a list of numbers") from None
    if w.shape != (n,) or not np.all(np.isfinite(w)) or np.any(w < 0) or np.any(w > 1):
        raise SpecError(field_name, "weights must be numbers in [0, 1]")
    return w


def _range(field_name: str, text: object) -> npt.NDArray[np.float64]:
    if not isinstance(text, str):
        raise SpecError(field_name, f"must be range text like 'AA, AKs', got {brief(text)}")
    if len(text) > MAX_RANGE_TEXT:
        raise SpecError(field_name, f"{len(text):,} characters; at most {MAX_RANGE_TEXT:,}")
    try:
        return parse_range(text)
    except ValueError as exc:
        raise SpecError(field_name, str(exc)) from None


def _key(key: object) -> str:
    """A table key as field names show it: short text as it is, anything else quoted."""
    return key if isinstance(key, str) and len(key) <= 40 else brief(key)


def _check_sizes_table(sizes: object) -> dict[str, dict[str, dict[str, str]]]:
    """``sizes`` as street → player → kind → text, every key and value checked."""
    if not isinstance(sizes, dict):
        raise SpecError("sizes", f"must be a table of streets, got {brief(sizes)}")
    for street, per_player in sizes.items():
        if street not in STREETS:
            raise SpecError(f"sizes.{_key(street)}", f"unknown street (use {', '.join(STREETS)})")
        if not isinstance(per_player, dict):
            raise SpecError(f"sizes.{street}", f"must be a table of players (oop, ip), got "
                            f"{brief(per_player)}")  # fmt: skip
        for player, kinds in per_player.items():
            where = f"sizes.{street}.{_key(player)}"
            if player not in PLAYERS:
                raise SpecError(where, "unknown player (use oop or ip)")
            if not isinstance(kinds, dict):
                raise SpecError(
                    where, f"must be a table of bets, raises, donks, got {brief(kinds)}"
                )
            for kind, text in kinds.items():
                name = f"{where}.{_key(kind)}"
                if kind not in KINDS:
                    raise SpecError(name, "unknown kind (use bets, raises, donks)")
                if kind == "donks" and (player != "oop" or street == "flop"):
                    raise SpecError(name, "donk bets are OOP's, on turn or river")
                if not isinstance(text, str):
                    raise SpecError(name, f"must be size text like '33%, a', got {brief(text)}")
    return sizes


def _betting(spec: HoldemSpec, sizes: dict[str, dict[str, dict[str, str]]]) -> list:
    """Each street's (OOP, IP) :class:`PlayerSizes`, overrides applied."""
    streets = []
    for street in STREETS:
        pair = []
        for player in PLAYERS:
            over = sizes.get(street, {}).get(player, {})
            prefix = f"sizes.{street}.{player}"
            try:
                bets = parse_sizes(over.get("bets", spec.bets), raise_sizes=False, field="bets")
                raises = parse_sizes(
                    over.get("raises", spec.raises), raise_sizes=True, field="raises"
                )
                donk_text = over.get("donks", spec.donks if player == "oop" else None)
                donks = (
                    None
                    if donk_text is None
                    else parse_sizes(donk_text, raise_sizes=False, field="donks")
                )
            except SizeError as exc:
                name, _, message = str(exc).partition(":")
                where = f"{prefix}.{name}" if street in sizes else name
                raise SpecError(where, message.strip()) from None
            pair.append(PlayerSizes(bets, raises, donks))
        streets.append((pair[0], pair[1]))
    return streets


def _can_meet(w0: npt.NDArray[np.float64], w1: npt.NDArray[np.float64]) -> bool:
    """Whether some OOP hand and some IP hand (positive weights) share no card. For each
    OOP hand (a, b): IP hands − those holding a − those holding b + the one holding both."""
    held = w1 > 0
    per_card = np.bincount(COMBOS[held].ravel(), minlength=52)
    a, b = COMBOS[w0 > 0, 0], COMBOS[w0 > 0, 1]
    apart = int(held.sum()) - per_card[a] - per_card[b] + held[w0 > 0]
    return bool(np.any(apart > 0))


def validate(spec: HoldemSpec) -> HoldemSetup:
    """Check every field of ``spec``; raise :class:`SpecError` naming the first bad one
    (``TypeError`` when ``spec`` is not a :class:`HoldemSpec` at all)."""
    if not isinstance(spec, HoldemSpec):
        raise TypeError(f"spec must be a HoldemSpec, got {type(spec).__name__}")
    if not isinstance(spec.name, str) or len(spec.name) > MAX_NAME:
        raise SpecError("name", f"must be text of at most {MAX_NAME} characters")
    try:
        board = parse_board(spec.board)
    except ValueError as exc:
        raise SpecError("board", str(exc)) from None
    chips = {"maximum": MAX_CHIPS, "whole": True, "unit": " chips"}
    pot = _number("pot", spec.pot, **chips)  # type: ignore[arg-type]
    stack = _number("stack", spec.stack, **chips)  # type: ignore[arg-type]
    big_blind = _number("big_blind", spec.big_blind, maximum=MAX_CHIPS, unit=" chips")
    if stack / big_blind > MAX_STACK_BB:
        raise SpecError(
            "stack",
            f"{stack:,.0f} chips is {stack / big_blind:,.0f} big blinds of {big_blind:g}; at "
            f"most {MAX_STACK_BB:,} (lower the stack or raise the big blind)",
        )
    raise_cap = _number(
        "raise_cap", spec.raise_cap, positive=False, maximum=MAX_RAISE_CAP, whole=True
    )
    thresholds = {}
    for name in ("add_allin_threshold", "force_allin_threshold", "merging_threshold"):
        thresholds[name] = _number(name, getattr(spec, name), positive=False)
    rake_pct = _number("rake_pct", _percent_text(spec.rake_pct), positive=False, maximum=100,
                       unit=" %")  # fmt: skip
    rake_cap = _number("rake_cap", spec.rake_cap, positive=False, maximum=MAX_CHIPS,
                       unit=" chips")  # fmt: skip
    machine = machine_memory_mb()
    max_memory_mb = _number("max_memory_mb", spec.max_memory_mb, maximum=machine, unit=" MB")
    for flag in ("isomorphism", "collapse_runouts"):
        if not isinstance(getattr(spec, flag), (bool, np.bool_)):
            raise SpecError(flag, f"must be true or false, got {brief(getattr(spec, flag))}")
    weights = []
    blocked = np.zeros(len(COMBOS), dtype=bool)
    for c in board:
        blocked |= (COMBOS[:, 0] == c) | (COMBOS[:, 1] == c)
    for player, text, given in (
        ("oop_range", spec.oop_range, spec.oop_weights),
        ("ip_range", spec.ip_range, spec.ip_weights),
    ):
        if given is not None:
            w = _weights(player.replace("range", "weights"), given)
        else:
            w = _range(player, text)
        w = np.where(blocked, 0.0, w)
        if not np.any(w > 0):
            raise SpecError(player, "no combos left once the board's cards are removed")
        weights.append(w)
    if not _can_meet(weights[0], weights[1]):
        raise SpecError(
            "ip_range", "no hand of it can be dealt with a hand of the OOP range (every pair "
            "shares a card)"
        )  # fmt: skip
    sizes = _check_sizes_table(spec.sizes)
    if spec.donks is not None and not isinstance(spec.donks, str):
        raise SpecError("donks", f"must be size text like '33%, a', got {brief(spec.donks)}")
    config = BettingConfig(
        start_street=len(board) - 3,
        pot=int(pot),
        stack=int(stack),
        sizes=tuple(_betting(spec, sizes)),
        big_blind=big_blind,
        raise_cap=int(raise_cap),
        collapse_runouts=bool(spec.collapse_runouts),
        **thresholds,
    )
    # as numbers (the CLI gives text)
    spec = replace(spec, max_memory_mb=max_memory_mb, rake_pct=rake_pct, rake_cap=rake_cap)
    return HoldemSetup(spec, board, (weights[0], weights[1]), config)
