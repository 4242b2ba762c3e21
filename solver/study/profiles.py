"""Opponent profiles: an opponent described in the stats players know (c-bet %, fold to
c-bet %, check-raise %, turn barrel %, river bet %, river bluff share, fold to river bet %),
compiled into frequency-shift locks (:mod:`solver.study.shift_lock`) at the nodes each stat
names, re-solved warm with those locks (:func:`solver.study.lock_effect.relock`), and read
back: each stat's target beside what the locked solve plays (docs/exploit.md, "Profiles").

Definitions (hold'em postflop subgames; the opponent sits ``"oop"`` or ``"ip"``; the spot
starts on its first street with OOP to act; a *bet* is any ``b:`` action, a *raise* any
``r:`` action):

* ``cbet`` — the opponent bets on the spot's first street when nobody has bet yet (OOP: its
  first action; IP: after OOP checks).
* ``fold_to_cbet`` / ``check_raise`` — facing the other player's first bet of the first
  street (OOP: after it checked and IP bet; IP: after OOP bet first), it folds / raises
  (``check_raise``: OOP only).
* ``turn_barrel`` — flop spots: after its flop c-bet was called, it bets the turn when
  nobody has bet yet.
* ``river_bet`` — it bets the river when nobody has bet on the river yet (any line before).
* ``river_bluff`` — the share of those river bets made with a bluff: a hand with under 50 %
  showdown equity against the range facing the bet (classified once, on the solve the
  profile is first compiled on, so target and readback count the same hands).
* ``fold_to_river_bet`` — facing the other player's first river bet, it folds.

A stat's frequency over its nodes weighs each of the opponent's hands at each node by the
probability of that deal reaching it: the hand's own reach × the other player's compatible
reach × the chance of the cards (× the cards one suit-isomorphic node stands for). A stat
given for a hand class (:data:`solver.poker.handclass.MADE` or ``DRAWS``, on the node's
board) counts only that class's hands. Percentages are 0–100 in the profile, fractions in
[0, 1] in the arrays.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.api import SolveResult, measure
from solver.cfr.locks import LockSet, locked_cells
from solver.cfr.reach import chance_factors, path_reach
from solver.games.model import DECISION, Game
from solver.lockspec import board_at, line_text
from solver.poker.handclass import DRAWS, MADE
from solver.quoting import brief
from solver.study.analysis import compatible, equities
from solver.study.node_table import walk_values, writable
from solver.study.shift_lock import shift
from solver.study.views import action_evs

Array = npt.NDArray[np.float64]
Mask = npt.NDArray[np.bool_]

VERSION = 1
TOLERANCE_PP = 1.0  # a stat is reached when the readback is within this many points
ROUNDS = 4  # compile-and-re-solve rounds at most (the hands reaching a node can move)
MAX_STATS = 64  # entries a profile may hold (a file is small)
_EPS = 1e-9


@dataclass(frozen=True)
class StatDef:
    """A stat: its key, the words players use, the action family it counts (``"bet"``,
    ``"fold"`` or ``"raise"``) and the seats it is defined for."""

    key: str
    label: str
    family: str
    seats: tuple[str, ...]
    where: str  # the nodes, in words (docs and the editor's help)


STATS: dict[str, StatDef] = {
    s.key: s
    for s in (
        StatDef("cbet", "C-bet %", "bet", ("oop", "ip"),
                "bets the first street when nobody has bet yet"),
        StatDef("fold_to_cbet", "Fold to c-bet %", "fold", ("oop", "ip"),
                "folds to the other player's first bet of the first street"),
        StatDef("check_raise", "Check-raise %", "raise", ("oop",),
                "raises after checking, facing the first bet of the first street"),
        StatDef("turn_barrel", "Turn barrel %", "bet", ("oop", "ip"),
                "bets the turn after its flop c-bet was called, nobody having bet yet"),
        StatDef("river_bet", "River bet %", "bet", ("oop", "ip"),
                "bets the river when nobody has bet on the river yet"),
        StatDef("river_bluff", "River bluff share %", "bet", ("oop", "ip"),
                "of its river bets, the share made with under 50 % equity"),
        StatDef("fold_to_river_bet", "Fold to river bet %", "fold", ("oop", "ip"),
                "folds to the other player's first river bet"),
    )
}  # fmt: skip
CLASSES: tuple[str, ...] = (*MADE, *DRAWS)


class ProfileError(ValueError):
    """A profile that cannot be used; ``field`` names the part at fault (``"player"``,
    ``"stats[2].value"``, ``"version"`` …)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


@dataclass(frozen=True)
class StatTarget:
    """One stat of a profile: ``value`` a percentage in [0, 100]; ``hand_class`` None for the
    whole range, else a class key of :data:`CLASSES`."""

    stat: str
    value: float
    hand_class: str | None = None

    @property
    def name(self) -> str:
        """``"cbet"`` or ``"cbet[top_pair]"``: how readbacks and messages name the entry."""
        return self.stat if self.hand_class is None else f"{self.stat}[{self.hand_class}]"


@dataclass(frozen=True)
class Profile:
    """An opponent: its seat (``"oop"`` or ``"ip"``) and its stats."""

    player: str
    stats: tuple[StatTarget, ...]
    name: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The small JSON form (``version`` 1)."""
        return {
            "version": VERSION,
            "name": self.name,
            "player": self.player,
            "stats": [
                {"stat": s.stat, "value": s.value}
                | ({"class": s.hand_class} if s.hand_class else {})
                for s in self.stats
            ],
        }

    @staticmethod
    def from_dict(data: object) -> Profile:
        """A profile from its JSON form; :class:`ProfileError` naming the first field that is
        wrong (a stat outside 0–100 %, an unknown stat or class, a stat the seat does not
        have, a stat given twice, two stats that contradict each other)."""
        if not isinstance(data, Mapping):
            raise ProfileError("profile", "a profile is a JSON object")
        known = {"version", "name", "player", "stats"}
        for key in data:
            if key not in known:
                raise ProfileError(
                    str(key)[:40], f"not a profile field (fields: {', '.join(sorted(known))})"
                )
        version = data.get("version")
        if version != VERSION:
            raise ProfileError(
                "version", f"{brief(version)} is not a profile version read here ({VERSION})"
            )
        name = data.get("name", "")
        if not isinstance(name, str) or len(name) > 200:
            raise ProfileError("name", "text of at most 200 characters")
        player = data.get("player")
        if player not in ("oop", "ip"):
            raise ProfileError("player", f"the opponent's seat, 'oop' or 'ip', got {brief(player)}")
        raw = data.get("stats")
        if not isinstance(raw, list) or not raw:
            raise ProfileError("stats", "a list of {stat, value[, class]}, at least one")
        if len(raw) > MAX_STATS:
            raise ProfileError("stats", f"at most {MAX_STATS} entries, got {len(raw)}")
        stats = tuple(_entry(f"stats[{i}]", e) for i, e in enumerate(raw))
        profile = Profile(str(player), stats, name)
        check_values(profile)
        return profile


def _entry(where: str, e: object) -> StatTarget:
    if not isinstance(e, Mapping):
        raise ProfileError(where, "an entry is {stat, value[, class]}")
    for key in e:
        if key not in ("stat", "value", "class"):
            raise ProfileError(f"{where}.{key}", "not a stat field (stat, value, class)")
    stat = e.get("stat")
    if not isinstance(stat, str) or stat not in STATS:
        raise ProfileError(f"{where}.stat", f"{brief(stat)} is not a stat ({', '.join(STATS)})")
    value = e.get("value")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ProfileError(f"{where}.value", f"a percentage 0–100, got {brief(value)}")
    try:
        number = float(value)
    except OverflowError:  # an integer past 1e308
        number = math.inf
    if not math.isfinite(number) or not 0.0 <= number <= 100.0:
        raise ProfileError(f"{where}.value", f"{brief(value)} is outside 0–100 %")
    klass = e.get("class")
    if klass is not None and (not isinstance(klass, str) or klass not in CLASSES):
        raise ProfileError(
            f"{where}.class", f"{brief(klass)} is not a hand class ({', '.join(CLASSES)})"
        )
    return StatTarget(str(stat), number, klass)


def check_values(profile: Profile) -> None:
    """What a profile's values alone say is wrong (no game needed): a stat the seat does not
    have, one given twice for the same hands, a bluff share per class, and stats of the same
    nodes that cannot all hold (fold % + check-raise % over 100)."""
    seen: dict[tuple[str, str | None], int] = {}
    for i, s in enumerate(profile.stats):
        where = f"stats[{i}]"
        d = STATS[s.stat]
        if profile.player not in d.seats:
            raise ProfileError(
                f"{where}.stat",
                f"{s.stat} is not a stat of the {profile.player.upper()} player "
                "(only the player out of position checks and then raises)",
            )
        if s.stat == "river_bluff" and s.hand_class is not None:
            raise ProfileError(
                f"{where}.class", "river_bluff is a share of all river bets; no class"
            )
        key = (s.stat, s.hand_class)
        if key in seen:
            raise ProfileError(where, f"{s.name} is given twice (stats[{seen[key]}] and here)")
        seen[key] = i
    for klass in {s.hand_class for s in profile.stats}:
        f = _find(profile, "fold_to_cbet", klass)
        r = _find(profile, "check_raise", klass)
        if f is not None and r is not None and f[1].value + r[1].value > 100.0 + _EPS:
            raise ProfileError(
                f"stats[{r[0]}]",
                f"{r[1].name} {r[1].value:g} % and {f[1].name} {f[1].value:g} % contradict "
                "each other: the same spots, together over 100 %",
            )
    if _find(profile, "river_bluff", None) and any(
        s.stat == "river_bet" and s.hand_class for s in profile.stats
    ):
        i = next(i for i, s in enumerate(profile.stats) if s.stat == "river_bluff")
        raise ProfileError(
            f"stats[{i}]",
            "river_bluff contradicts a river_bet given per class: the bluff "
            "share splits the whole range's bets",
        )


def _find(profile: Profile, stat: str, klass: str | None) -> tuple[int, StatTarget] | None:
    for i, s in enumerate(profile.stats):
        if s.stat == stat and s.hand_class == klass:
            return i, s
    return None


# ----- which nodes a stat names --------------------------------------------------------------
def _streets(labels: Sequence[str]) -> list[list[str]]:
    out: list[list[str]] = [[]]
    for lab in labels:
        if lab.startswith("d:"):
            out.append([])
        else:
            out[-1].append(lab)
    return out


def _is(labels: list[str], pattern: Sequence[str]) -> bool:
    """``labels`` match ``pattern``, where ``"b:"`` and ``"r:"`` stand for any bet or raise."""
    return len(labels) == len(pattern) and all(
        lab.startswith(p) if p.endswith(":") else lab == p
        for lab, p in zip(labels, pattern, strict=True)
    )


def stat_nodes(game: Game, stat: str, seat: str) -> list[int]:
    """The decision nodes of the opponent in ``seat`` where ``stat`` counts (module doc)."""
    player = 0 if seat == "oop" else 1
    first = [] if seat == "oop" else ["k"]
    facing = ["k", "b:"] if seat == "oop" else ["b:"]
    start = len(np.asarray(game.meta["board"]))
    t = game.tree
    out = []
    for node in np.flatnonzero((t.kind == DECISION) & (t.player == player)):
        streets = _streets(game.history(int(node)))
        cur, street = streets[-1], start + len(streets) - 1
        if stat == "cbet":
            ok = len(streets) == 1 and cur == first
        elif stat in ("fold_to_cbet", "check_raise"):
            ok = len(streets) == 1 and _is(cur, facing)
        elif stat == "turn_barrel":
            called = ["b:", "c"] if seat == "oop" else ["k", "b:", "c"]
            ok = start == 3 and street == 4 and _is(streets[0], called) and cur == first
        elif stat in ("river_bet", "river_bluff"):
            ok = street == 5 and cur == first
        else:  # fold_to_river_bet
            ok = street == 5 and _is(cur, facing)
        if ok:
            out.append(int(node))
    return out


def _family(game: Game, node: int, family: str) -> list[int]:
    prefix = {"bet": "b:", "raise": "r:", "fold": "f"}[family]
    return [i for i, lab in enumerate(game.action_labels(node)) if lab.startswith(prefix)]


def _class_mask(game: Game, node: int, player: int, klass: str) -> Mask:
    from solver.poker.handclass import classify_hands

    nh = int(game.num_hands[player])
    board = board_at(game, node)
    assert board is not None
    made, draws = classify_hands(board, game.hands.cards[player, :nh].astype(np.int64))
    if klass in MADE:
        return np.asarray(made == MADE.index(klass), dtype=bool)
    return np.asarray(draws[:, DRAWS.index(klass)], dtype=bool)


@dataclass(frozen=True)
class Plan:
    """What a profile means in one game: per entry (the profile's order) its nodes and the
    action family's indices there, the hand masks of class entries, and the bluff masks of
    ``river_bluff``'s nodes (fixed once)."""

    profile: Profile
    player: int
    nodes: list[list[int]]  # per entry
    masks: dict[tuple[int, int], Mask]  # (entry, node) -> (H,) the class's hands
    bluffs: dict[int, Mask] = field(default_factory=dict)  # node -> (H,) bluff hands


def plan(game: Game, profile: Profile) -> Plan:
    """Check ``profile`` against ``game`` (its nodes, its classes, stats sharing nodes)
    without a strategy; :class:`ProfileError` naming the field of the first problem."""
    if not game.is_holdem or game.meta.get("preflop"):
        raise ProfileError("game", "profiles describe the players of a hold'em postflop spot")
    check_values(profile)
    player = 0 if profile.player == "oop" else 1
    nodes: list[list[int]] = []
    masks: dict[tuple[int, int], Mask] = {}
    for i, s in enumerate(profile.stats):
        found = stat_nodes(game, s.stat, profile.player)
        if not found:
            raise ProfileError(
                f"stats[{i}].stat",
                f"{s.stat} has no spot in this tree for {profile.player.upper()} "
                f"({STATS[s.stat].where}; the spot starts with a board of "
                f"{len(np.asarray(game.meta['board']))} cards and these bet sizes)",
            )
        if not any(_family(game, n, STATS[s.stat].family) for n in found):
            raise ProfileError(
                f"stats[{i}].stat", f"{s.stat}: no {STATS[s.stat].family} action at its spots"
            )
        nodes.append(found)
        if s.hand_class is not None:
            for n in found:
                masks[(i, n)] = _class_mask(game, n, player, s.hand_class) & game.valid_hands(
                    n, player
                )
            if not any(masks[(i, n)].any() for n in found):
                raise ProfileError(
                    f"stats[{i}].class",
                    f"no hand of {profile.player.upper()}'s range is {s.hand_class} at the "
                    f"{s.stat} spots",
                )
    # the same nodes and action family, the same hands: one number, not two
    for i, a in enumerate(profile.stats):
        for j in range(i):
            b = profile.stats[j]
            same = STATS[a.stat].family == STATS[b.stat].family and a.hand_class == b.hand_class
            if "river_bluff" in (a.stat, b.stat) or not same:
                continue
            if set(nodes[i]) & set(nodes[j]) and abs(a.value - b.value) > _EPS:
                raise ProfileError(
                    f"stats[{i}]",
                    f"{a.name} {a.value:g} % contradicts {b.name} {b.value:g} % (stats[{j}]): "
                    "in this tree they count the same spots",
                )
    return Plan(profile, player, nodes, masks)


# ----- compiling into locks -------------------------------------------------------------------
def locked_sigma(game: Game, sigma: Array, locks: LockSet | None) -> Array:
    """(A,) ``sigma`` with the locks' mixes at their locked cells (what the solve plays)."""
    out = np.array(sigma, dtype=np.float64)
    if locks is not None and locks.locks.node.any():
        cells = locked_cells(game, locks.locks)
        out[cells] = locks.locks.strategy[cells]
    return out


def _weights(game: Game, sigma: Array, node: int, player: int, compat: Mask) -> Array:
    """(H,) each of ``player``'s hands at ``node``: own reach × the other's compatible reach
    (card removal); 0 for a hand the board blocks."""
    reach = path_reach(game, sigma, node)
    mass = compat @ reach[1] if player == 0 else compat.T @ reach[0]
    return np.where(game.valid_hands(node, player), reach[player] * mass, 0.0)


def _family_shift(s: Array, w: Array, gain: Array, fam: list[int], target: float) -> Array:
    """:func:`shift` of an action family (several bet sizes count as one "bet"): the family's
    total moves to ``target`` over ``w``; a hand's new family share is split over the sizes
    as it split it before (else as the range does)."""
    na = s.shape[0]
    others = [a for a in range(na) if a not in fam]
    if not others:
        return s.copy()
    merged = np.vstack([s[fam].sum(axis=0, keepdims=True), s[others]])
    moved = shift(merged, w, gain, 0, min(max(target, 0.0), 1.0))
    out = s.copy()
    out[others] = moved[1:]
    old = merged[0]
    sizes = s[fam] / np.where(old > _EPS, old, 1.0)
    mix = w @ s[fam].T
    fallback = mix / mix.sum() if mix.sum() > 0 else np.full(len(fam), 1.0 / len(fam))
    sizes = np.where(old[None, :] > _EPS, sizes, fallback[:, None])
    out[fam] = sizes * moved[0][None, :]
    return out


def _flat(s: Array, fam: list[int], target: float) -> Array:
    """(num_actions, n) every hand of ``s`` with the family at ``target``: the family's share
    split as the hand split it (evenly when it played none), the rest likewise."""
    out = np.empty_like(s)
    others = [a for a in range(s.shape[0]) if a not in fam]
    for group, share in ((fam, target), (others, 1.0 - target)):
        if not group:
            continue
        part = s[group]
        total = part.sum(axis=0)
        even = np.full_like(part, 1.0 / len(group))
        out[group] = share * np.where(total > _EPS, part / np.where(total > _EPS, total, 1.0), even)
    return out


def _best(evs: Array) -> Array:
    """(H,) the best of the family's EVs per hand (NaN where the hand is not there)."""
    filled = np.where(np.isnan(evs), -np.inf, evs).max(axis=0)
    return np.where(np.isfinite(filled), filled, np.nan)


def _freq(s: Array, w: Array, fam: list[int]) -> float:
    total = float(w.sum())
    return float(w @ s[fam].sum(axis=0)) / total if total > 0 else math.nan


@dataclass(frozen=True)
class Compiled:
    """A profile compiled against one solve: ``locks`` {line: {hand: {action: p}}} as
    :mod:`solver.lockspec` reads them, and the plan (with its bluff masks)."""

    locks: dict[str, dict[str, dict[str, float]]]
    plan: Plan


def compile_profile(
    solved: SolveResult | tuple[Game, Array],
    profile: Profile,
    *,
    locks: LockSet | None = None,
    bluffs: Mapping[int, Mask] | None = None,
    aims: Mapping[int, float] | None = None,
) -> Compiled:
    """The frequency-shift locks that make the opponent play ``profile`` in ``solved`` (a
    result, or a game with its flat average strategy; ``locks``: the solve's own, when a
    game and strategy are given). At each stat node the hands the stat counts move into
    (or out of) the stat's action family in the order of the solution's EV gain, to the
    target frequency; a whole-range stat given beside class stats moves the hands the
    classes leave. ``aims`` {entry: percent} replaces some entries' targets (a later round
    aiming past a target the last solve fell short of). :class:`ProfileError` names the
    field of a profile that does not fit the game or contradicts itself at some node;
    nothing is locked then."""
    if isinstance(solved, SolveResult):
        game = solved.game
        sigma = locked_sigma(game, solved.average_strategy(), solved.engine.lockset)
    else:
        game, raw = solved
        sigma = locked_sigma(game, raw, locks)
    p = plan(game, profile)
    if aims:
        profile = Profile(
            profile.player,
            tuple(StatTarget(t.stat, float(aims.get(i, t.value)), t.hand_class)
                  for i, t in enumerate(profile.stats)),
            profile.name,
        )  # fmt: skip
    player = p.player
    compat = compatible(game)
    by_node: dict[int, list[int]] = {}
    for i, found in enumerate(p.nodes):
        for n in found:
            by_node.setdefault(n, []).append(i)
    stats = profile.stats
    made_bluffs: dict[int, Mask] = dict(bluffs or {})
    walkable = writable(sigma)

    def values(child: int, who: int) -> Array:  # (a pooled walk scratch, not one per walk)
        return walk_values(game, walkable, child, who)

    out: dict[str, dict[str, dict[str, float]]] = {}
    names = game.hand_names[player]
    for node, entries in sorted(by_node.items()):
        off, na, nh = game.block(node)
        valid = game.valid_hands(node, player)
        w = _weights(game, sigma, node, player, compat)
        if not (w > 0).any():  # nobody gets here now: rank the range as if all of it did
            w = np.where(valid, game.hands.weights[player, :nh], 0.0)
        s = sigma[off : off + na * nh].reshape(na, nh).copy()
        evs = action_evs(game, sigma, node, compat, values=values)
        ev_here = np.nansum(np.nan_to_num(evs) * s, axis=0)
        tasks = _tasks(game, node, entries, stats, p, s, w, valid, sigma, compat, made_bluffs)
        for _ in range(200):  # one pass unless two families share the node (fold and raise)
            for fam, hands, target in tasks:
                gain = _best(evs[fam]) - ev_here
                s = _family_shift(s, np.where(hands & (w > 0), w, 0.0), gain, fam, target)
            if all(
                abs(_freq(s, np.where(m & (w > 0), w, 0.0), f) - t) < 1e-10
                for f, m, t in tasks
                if (w[m] > 0).any()
            ):
                break
        touched = np.zeros(nh, dtype=bool)
        for fam, hands, target in tasks:
            # a hand that does not get here now plays its group's mix (none of the group
            # gets here: the target, flat), so that whichever hands get here after the
            # re-solve, the group's frequency stays the target
            reached, unreached = hands & (w > 0), hands & ~(w > 0)
            if unreached.any() and reached.any():
                mix = s[:, reached] @ w[reached] / float(w[reached].sum())
                s[:, unreached] = mix[:, None]
            elif unreached.any():
                s[:, unreached] = _flat(s[:, unreached], fam, target)
            touched |= hands
        labels = game.action_labels(node)
        out[line_text(game.history(node))] = {
            names[h]: {lab: float(s[a, h]) for a, lab in enumerate(labels) if s[a, h] > 0}
            for h in np.flatnonzero(touched)
        }
    return Compiled(_normalised(out), replace_bluffs(p, made_bluffs))


def _tasks(
    game: Game,
    node: int,
    entries: list[int],
    stats: tuple[StatTarget, ...],
    p: Plan,
    s: Array,
    w: Array,
    valid: Mask,
    sigma: Array,
    compat: Mask,
    bluffs: dict[int, Mask],
) -> list[tuple[list[int], Mask, float]]:
    """The shifts at ``node``: (action family, the hands (valid, reached or not) it moves,
    the family's target frequency over them). Class entries first; a whole-range entry then
    takes the hands the classes left, at the frequency that makes the range's total its
    target; ``river_bluff`` splits the bets between bluffs and the rest. ``bluffs`` gets the
    node's bluff hands the first time. :class:`ProfileError` when the targets cannot all
    hold here."""
    where = line_text(game.history(node))
    tasks: list[tuple[list[int], Mask, float]] = []
    for family in ("bet", "fold", "raise"):
        fam = _family(game, node, family)
        mine = [i for i in entries if STATS[stats[i].stat].family == family]
        if not mine or not fam:
            continue
        taken = np.zeros(valid.shape, dtype=bool)
        fixed = 0.0  # the class entries' share of the range's family mass
        for i in [i for i in mine if stats[i].hand_class is not None]:
            m = p.masks[(i, node)] & valid & ~taken
            if m.any():
                tasks.append((fam, m, stats[i].value / 100.0))
                fixed += float(w[m].sum()) * stats[i].value / 100.0
                taken |= m
        whole = [i for i in mine if stats[i].hand_class is None and stats[i].stat != "river_bluff"]
        bluff = [i for i in mine if stats[i].stat == "river_bluff"]
        rest = valid & ~taken
        total = float(w.sum())
        if bluff:
            j = bluff[0]
            share = stats[j].value / 100.0
            bet = stats[whole[0]].value / 100.0 if whole else _freq(s, w, fam)
            if node not in bluffs:
                eq = equities(game, node, path_reach(game, sigma, node), compat)[p.player]
                bluffs[node] = np.nan_to_num(eq, nan=1.0) < 0.5
            for mask, mass, what in ((bluffs[node] & rest, share * bet * total, "bluffs"),
                                     (~bluffs[node] & rest, (1 - share) * bet * total,
                                      "value hands")):  # fmt: skip
                have = float(w[mask].sum())
                if mass > have * (1 + 1e-9) + _EPS * total:
                    raise ProfileError(
                        f"stats[{j}]",
                        f"river_bluff {stats[j].value:g} % of {100 * bet:.1f} % bets "
                        f"contradicts the range at {where}: {what} are only "
                        f"{100 * have / total:.1f} % of it",
                    )
                if mask.any():
                    tasks.append((fam, mask, mass / have if have > 0 else 0.0))
        elif whole and rest.any():
            i = whole[0]
            left = float(w[rest].sum())
            need = (stats[i].value / 100.0 * total - fixed) / left if left > 0 else 0.0
            if not -1e-9 <= need <= 1 + 1e-9:
                raise ProfileError(
                    f"stats[{i}]",
                    f"{stats[i].name} {stats[i].value:g} % contradicts the class stats of "
                    f"{stats[i].stat} at {where}: the other hands would need {100 * need:.1f} %",
                )
            tasks.append((fam, rest, min(max(need, 0.0), 1.0)))
    return tasks


def _normalised(locks: dict[str, dict[str, dict[str, float]]]) -> dict[str, Any]:
    """Each hand's mix summing to 1 within the lock reader's tolerance (shifting adds and
    scales in floating point)."""
    for mixes in locks.values():
        for hand, mix in mixes.items():
            total = sum(mix.values())
            mixes[hand] = {a: p / total for a, p in mix.items()}
    return locks


def replace_bluffs(p: Plan, bluffs: Mapping[int, Mask]) -> Plan:
    """``p`` with ``bluffs`` as its bluff hands."""
    return Plan(p.profile, p.player, p.nodes, p.masks, dict(bluffs))


# ----- reading a solve back -------------------------------------------------------------------
@dataclass(frozen=True)
class Readback:
    """One entry's target beside what a solve plays (percentages; ``achieved`` None when no
    hand the stat counts reaches its spots), ``ok`` within :data:`TOLERANCE_PP`, and why
    not when it is not."""

    stat: str
    hand_class: str | None
    target: float
    achieved: float | None
    ok: bool
    reason: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "stat": self.stat,
            "class": self.hand_class,
            "target": self.target,
            "achieved": self.achieved,
            "ok": self.ok,
            "reason": self.reason,
        }


def achieved(game: Game, sigma: Array, p: Plan) -> list[float | None]:
    """Each entry's frequency (percent) under ``sigma`` (A,) (locks already in it): over the
    stat's nodes, the family's share of the hands it counts, each weighted as the module
    doc says; ``river_bluff``: the bluffs' share of the bet mass. None when nothing counts."""
    compat = compatible(game)
    cf = chance_factors(game) * game.multiplicity
    cache: dict[int, Array] = {}
    out: list[float | None] = []
    for i, s_t in enumerate(p.profile.stats):
        num = den = 0.0
        for n in p.nodes[i]:
            if n not in cache:
                cache[n] = _weights(game, sigma, n, p.player, compat) * cf[n]
            w = cache[n]
            fam = _family(game, n, STATS[s_t.stat].family)
            if not fam:
                continue
            off, na, nh = game.block(n)
            play = sigma[off : off + na * nh].reshape(na, nh)[fam].sum(axis=0)
            if s_t.stat == "river_bluff":
                bluff = p.bluffs.get(n)
                if bluff is None:
                    continue
                num += float(w @ (play * bluff))
                den += float(w @ play)
            else:
                m = p.masks.get((i, n))
                ww = w if m is None else np.where(m, w, 0.0)
                num += float(ww @ play)
                den += float(ww.sum())
        out.append(100.0 * num / den if den > 0 else None)
    return out


def readback(game: Game, sigma: Array, p: Plan, rounds_left: bool = False) -> list[Readback]:
    """:func:`achieved` beside the targets, each flagged when off by more than
    :data:`TOLERANCE_PP` with the reason."""
    rows = []
    for s_t, got in zip(p.profile.stats, achieved(game, sigma, p), strict=True):
        if got is None:
            why = "no hand it counts reaches its spots in the locked solve"
            rows.append(Readback(s_t.stat, s_t.hand_class, s_t.value, None, False, why))
            continue
        ok = abs(got - s_t.value) <= TOLERANCE_PP
        reason = "" if ok else (
            "the hands reaching its spots (the opponent's free decisions before them) or the "
            "hands they meet (card removal) moved in the re-solve"
            + ("; another round may close it" if rounds_left else "")
        )  # fmt: skip
        rows.append(Readback(s_t.stat, s_t.hand_class, s_t.value, got, ok, reason))
    return rows


# ----- the warm re-solve ---------------------------------------------------------------------
@dataclass
class ProfileRun:
    """A profiled re-solve: the locked result, the locks it ran with (the solve's own and the
    profile's), each stat's readback and the rounds it took."""

    result: SolveResult
    locks: dict[str, Any]
    rows: list[Readback]
    rounds: int


def apply_profile(
    result: SolveResult,
    profile: Profile,
    *,
    iterations: int | None = None,
    target_exploitability: float | None = None,
    rounds: int = ROUNDS,
    check_every: int = 10,
    on_round: Callable[[int, list[Readback]], None] | None = None,
) -> ProfileRun:
    """Compile ``profile`` against ``result``, re-solve warm with its locks beside the solve's
    own (:func:`solver.study.lock_effect.relock`; ``iterations`` — default the result's own
    count — or down to ``target_exploitability`` chips, whichever first), and read the stats
    back on the locked solve. While a stat is off by more than 1 pp (the hands reaching its
    nodes moved, when the opponent's earlier decisions are free) the profile is compiled
    again against the locked solve, aiming past the target by what the last solve fell
    short, and re-solved warm, up to ``rounds`` rounds. :class:`ProfileError` before
    anything is solved when the profile does not fit; a profile node the solve has locked
    already is refused too."""
    from solver.study.lock_effect import relock

    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
        raise ValueError(f"rounds must be a whole number ≥ 1, got {rounds!r}")
    game = result.game
    own = dict(result.engine.lockset.spec) if result.engine.lockset is not None else {}
    compiled = compile_profile(result, profile)
    for line in compiled.locks:
        if line in own:
            raise ProfileError(
                "locks", f"{line} is locked already; the profile would lock it again"
            )
    limit = int(iterations) if iterations is not None else max(int(result.iteration), 1)
    current = result
    rows: list[Readback] = []
    locks: dict[str, Any] = {}
    done = 0
    aims = {i: t.value for i, t in enumerate(profile.stats)}
    for r in range(rounds):
        # a node nobody reached in the last solve keeps the lock an earlier round gave it
        locks = {**own, **{k: v for k, v in locks.items() if k not in own}, **compiled.locks}
        engine = relock(current.engine, locks, warm=True)
        new = SolveResult(engine.game, engine.rule, engine)
        started = time.perf_counter()
        cp = measure(engine, started)
        new.history.append(cp)
        while engine.iteration < limit:
            if target_exploitability is not None and cp.exploitability <= target_exploitability:
                new.stopped_by = "target"
                break
            engine.iterate(int(min(check_every, limit - engine.iteration)))
            cp = measure(engine, started)
            new.history.append(cp)
        done = r + 1
        sigma = locked_sigma(game, new.average_strategy(), engine.lockset)
        rows = readback(game, sigma, compiled.plan, rounds_left=done < rounds)
        if on_round is not None:
            on_round(done, rows)
        current = new
        if all(row.ok for row in rows) or done == rounds:
            break
        for i, row in enumerate(rows):  # aim past what the solve fell short of
            if row.achieved is not None and not row.ok:
                aims[i] = min(max(aims[i] + row.target - row.achieved, 0.0), 100.0)
        try:
            compiled = compile_profile(current, profile, bluffs=compiled.plan.bluffs, aims=aims)
        except ProfileError:  # (the corrected aims cannot all hold: keep the last solve)
            break
    return ProfileRun(current, locks, rows, done)
