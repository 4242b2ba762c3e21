"""Reports at any line of a batch's trees: the mix, EVs, equity, EQR, reach and per-class mix
at the node a line reaches, per flop and weighted over flops, per turn or river card group.

A **line** is the actions from the flop root in the API's labels, a street's card either
named (``Kh``) or ``any`` (every card the tree deals there): ``"k b:100 c"``,
``"b:100 c any b:200"``, ``"k k Kh b:100"``. A named card that is suit-isomorphic to a card
the tree deals is read through the suit map (the same node, the same numbers).

**Within a flop** a line may reach several nodes (one per card of each ``any``; a card
class under suit isomorphism once, counted ``mult`` times). They combine weighted by
``mult × reach`` (how often each is reached): ``reach`` is their sum (the probability of the
line given the flop, cards included), the mix, EVs (chips), equity, EQR and the per-class
mix are means with those weights (a class's mix also by its combos).

**Over flops** each flop counts with its weight (:mod:`solver.poker.flops`) for ``reach``, and
with weight × reach for the rest: "IP bets 40 % facing a check" is over the times IP faces a
check on dealt flops. (The root report's ``ip vs k`` columns weight each flop alike; at the
root both agree.) Flops whose tree lacks the line — a size it does not offer, a line below
the summary's cut — are left out and counted.

**Streets**: with ``street`` (turn or river) each flop's nodes are also grouped by that
street's card: by rank and by its relation to the board before it (:func:`card_relation`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from solver.batch.treedata import TreeSummary
from solver.poker.cards import RANKS, SUITS, card_str, parse_card
from solver.poker.handclass import DRAWS, MADE

RELATIONS = ("pairs_board", "flush", "straight", "overcard", "blank")
_CLASS_ORDER = {k: i for i, k in enumerate((*MADE, *DRAWS))}


class LineError(ValueError):
    """A line no flop has (``step`` the first step that matches nothing) or a malformed one."""


def parse_line(text: str) -> list[str]:
    """The steps of a line: action labels as given, cards as ``d:Kh``, ``any``."""
    steps = []
    for tok in text.replace(",", " ").split():
        low = tok.lower()
        if low in ("any", "*"):
            steps.append("any")
        elif tok.startswith("d:"):
            steps.append("d:" + card_str(parse_card(tok[2:])))
        elif len(tok) == 2 and tok[0].upper() in RANKS and tok[1].lower() in SUITS:
            steps.append("d:" + card_str(parse_card(tok)))
        else:
            steps.append(tok)
    return steps


@dataclass
class Match:
    """One node a line reaches in a flop's summary: node index, multiplicity (cards it
    stands for), the suit map into the tree's frame, the street cards dealt (tree frame)
    and the same cards as dealt (``real``: a card the line names, or for ``any`` the card
    of the class the tree deals, read back through the suit map)."""

    node: int
    mult: float
    smap: tuple[int, ...]
    cards: tuple[int, ...]
    real: tuple[int, ...] = ()


def walk(
    ts: TreeSummary, steps: Sequence[str], kids: list[list[int]] | None = None
) -> tuple[list[Match], int, list[str]]:
    """The nodes ``steps`` reach in ``ts``, how many steps matched (len(steps) when all
    did; else the index of the first step that matched nothing) and, then, what the nodes
    there offer (actions, or ``any`` and the cards). ``kids``: ``ts.children()`` when the
    caller has it."""
    kids = ts.children() if kids is None else kids
    lab = ts.labels
    isos: dict[int, list[tuple[int, tuple[int, ...]]]] = {}
    for node, card, smap in zip(ts["iso_node"], ts["iso_card"], ts["iso_smap"], strict=True):
        isos.setdefault(int(node), []).append((int(card), tuple(int(s) for s in smap)))
    cur = [Match(0, 1.0, (0, 1, 2, 3), ())]
    for i, step in enumerate(steps):
        nxt: list[Match] = []
        for m in cur:
            chance = ts["kind"][m.node] == 1
            for c in kids[m.node]:
                name = lab[int(ts["step"][c])]
                if step == "any" and chance:
                    card = parse_card(name[2:])
                    back = m.smap.index(card % 4)  # the tree's suit → the dealt card's
                    nxt.append(Match(c, m.mult * float(ts["mult"][c]), m.smap, (*m.cards, card),
                                     (*m.real, (card // 4) * 4 + back)))  # fmt: skip
                elif step.startswith("d:") and chance:
                    real = parse_card(step[2:])
                    mapped = (real // 4) * 4 + m.smap[real % 4]
                    if name == "d:" + card_str(mapped):
                        nxt.append(Match(c, m.mult, m.smap, (*m.cards, mapped), (*m.real, real)))
                        continue
                    for card, smap2 in isos.get(c, []):
                        if card == mapped:
                            smap = tuple(smap2[s] for s in m.smap)
                            canon = parse_card(name[2:])
                            nxt.append(Match(c, m.mult, smap, (*m.cards, canon), (*m.real, real)))
                elif not chance and name == step:
                    nxt.append(Match(c, m.mult, m.smap, m.cards, m.real))
        if not nxt:
            offered = {lab[int(ts["step"][c])] for m in cur for c in kids[m.node]}
            cards = sorted(o for o in offered if o.startswith("d:"))
            options = sorted(o for o in offered if not o.startswith("d:"))
            if cards:
                options += ["any", f"a card ({len(cards)} kept, e.g. {_show(cards[0])})"]
            return [], i, options
        cur = nxt
    return cur, len(steps), []


@dataclass
class NextSteps:
    """What the nodes a line reaches in one flop's summary offer next: ``actions`` (the
    labels of a decision's kept children, tree order) with the ``player`` who acts, or
    ``cards`` (a chance node's: every card it deals, named as dealt — suit-isomorphic
    cards included, read back through the suit map). Both empty: nothing kept below (the
    hand ends there, or what follows is below the summary's cut)."""

    actions: list[str] = field(default_factory=list)
    cards: list[str] = field(default_factory=list)
    player: int = -1


def next_steps(ts: TreeSummary, steps: Sequence[str]) -> NextSteps | None:
    """What ``ts`` offers after ``steps`` (None: the line is not in this tree)."""
    kids = ts.children()
    matches, got, _options = walk(ts, steps, kids)
    if not matches or got < len(steps):
        return None
    out = NextSteps()
    actions: dict[str, None] = {}
    cards: set[int] = set()
    isos: dict[int, list[int]] = {}
    for node, card in zip(ts["iso_node"], ts["iso_card"], strict=True):
        isos.setdefault(int(node), []).append(int(card))
    for m in matches:
        back = {t: s for s, t in enumerate(m.smap)}  # tree suit → the dealt card's suit
        if ts["kind"][m.node] == 1:
            for c in kids[m.node]:
                for card in (parse_card(ts.labels[int(ts["step"][c])][2:]), *isos.get(c, [])):
                    cards.add((card // 4) * 4 + back[card % 4])
        else:
            out.player = int(ts["player"][m.node])
            actions.update(dict.fromkeys(ts.labels[int(ts["step"][c])] for c in kids[m.node]))
    out.actions = list(actions)
    out.cards = [card_str(c) for c in sorted(cards, reverse=True)]
    return out


@dataclass
class Stats:
    """The numbers at a line (one node, a flop, a group, the aggregate): ``reach`` (a
    probability), ``mix`` {action: frequency} (empty at a chance node), ``ev``/``equity``/
    ``eqr`` [OOP, IP] (chips; [0, 1]; ratio; NaN where undefined), ``pot`` (chips),
    ``classes`` {class: (combos, {action: frequency})}, ``weight`` the flops' weight summed
    and ``flops`` how many."""

    reach: float = math.nan
    mix: dict[str, float] = field(default_factory=dict)
    ev: list[float] = field(default_factory=lambda: [math.nan, math.nan])
    equity: list[float] = field(default_factory=lambda: [math.nan, math.nan])
    eqr: list[float] = field(default_factory=lambda: [math.nan, math.nan])
    pot: float = math.nan
    player: int = -1
    classes: dict[str, tuple[float, dict[str, float]]] = field(default_factory=dict)
    weight: float = 0.0
    flops: int = 0

    def record(self, totals: bool = False) -> dict[str, Any]:
        """JSON-able: ``reach``, ``mix``, ``ev``, ``equity``, ``eqr``, ``pot``, ``player``,
        ``sizes`` (where two or more bets or raises: each and their sum ``bets``),
        ``classes`` [{"class", "combos", "mix"}] (strongest first); ``totals``: also the
        ``flops`` and their ``weight``."""
        out: dict[str, Any] = {
            "reach": self.reach, "mix": self.mix, "ev": self.ev, "equity": self.equity,
            "eqr": self.eqr, "pot": self.pot, "player": self.player,
        }  # fmt: skip
        bets = {a: f for a, f in self.mix.items() if a.startswith(("b:", "r:"))}
        if len(bets) >= 2:
            out["sizes"] = {**bets, "bets": sum(bets.values())}
        order = sorted(self.classes, key=lambda k: _CLASS_ORDER.get(k, len(_CLASS_ORDER)))
        out["classes"] = [
            {"class": k, "combos": self.classes[k][0], "mix": self.classes[k][1]} for k in order
        ]
        if totals:
            out["flops"] = self.flops
            out["weight"] = self.weight
        return out


def node_stats(ts: TreeSummary, node: int) -> Stats:
    """The stored numbers of one node."""
    s = Stats(
        reach=float(ts["reach"][node]),
        ev=[float(x) for x in ts["ev"][node]],
        equity=[float(x) for x in ts["equity"][node]],
        eqr=[float(x) for x in ts["eqr"][node]],
        pot=float(ts["pot"][node]),
        player=int(ts["player"][node]),
    )
    if ts["kind"][node] == 0:
        acts = ts.node_actions(node)
        s.mix = {a: float(f) for a, f in zip(acts, ts["mix"][node], strict=False)}
        rows, ids = ts.class_rows(node)
        for r, k in zip(rows, ids, strict=True):
            mix = {a: float(f) for a, f in zip(acts, ts["cls_mix"][r], strict=False)}
            s.classes[ts.classes[int(k)]] = (float(ts["cls_combos"][r]), mix)
    return s


def combine(parts: Iterable[tuple[Stats, float]], sum_reach: bool) -> Stats:
    """Parts with weights ``w`` as one: the numbers weighted by ``w × reach`` (a class's mix
    also by its combos); ``reach`` the weighted sum (``sum_reach``: nodes of one flop) or the
    weighted mean (flops)."""
    parts = list(parts)
    out = Stats()
    wsum = sum(w for _s, w in parts)
    rsum = sum(w * s.reach for s, w in parts if math.isfinite(s.reach))
    out.reach = rsum if sum_reach else (rsum / wsum if wsum > 0 else math.nan)
    out.weight = sum(s.weight for s, _w in parts)
    out.flops = sum(s.flops for s, _w in parts)
    vw = [(s, w * s.reach) for s, w in parts if math.isfinite(s.reach)]
    total = sum(v for _s, v in vw)
    if not vw:
        return out
    out.player = vw[0][0].player
    pots = [s.pot for s, _v in vw if math.isfinite(s.pot)]
    out.pot = (
        pots[0] if pots and all(p == pots[0] for p in pots) else _mean([(s.pot, v) for s, v in vw])
    )
    actions: dict[str, None] = {}
    for s, _v in vw:
        actions.update(dict.fromkeys(s.mix))
    if total > 0:
        for a in actions:  # an action a node lacks counts as 0 there
            out.mix[a] = sum(v * s.mix.get(a, 0.0) for s, v in vw if s.mix) / max(
                sum(v for s, v in vw if s.mix), 1e-300
            )
    for key in ("ev", "equity", "eqr"):
        setattr(out, key, [_mean([(getattr(s, key)[p], v) for s, v in vw]) for p in range(2)])
    keys: dict[str, None] = {}
    for s, _v in vw:
        keys.update(dict.fromkeys(s.classes))
    for k in keys:
        rows = [(v * s.classes[k][0], s.classes[k][1]) for s, v in vw if k in s.classes]
        combos = sum(c for c, _m in rows)  # a class's mix: weighted by its combos as well
        mix = (
            {a: sum(c * m.get(a, 0.0) for c, m in rows) / combos for a in actions}
            if combos > 0
            else {}
        )
        out.classes[k] = (combos / total if total > 0 else math.nan, mix)
    return out


def _mean(pairs: Iterable[tuple[float, float]]) -> float:
    num = den = 0.0
    for x, w in pairs:
        if math.isfinite(x) and w > 0:
            num += w * x
            den += w
    return num / den if den > 0 else math.nan


def card_relation(card: int, board: Sequence[int]) -> str:
    """What a turn or river card does to the board before it, the first that applies:
    ``pairs_board`` (its rank is on the board), ``flush`` (the third or later card of a
    suit: a flush becomes possible), ``straight`` (a straight becomes possible with two hole
    cards where it was not), ``overcard`` (above every board card), ``blank``."""
    ranks = {c // 4 for c in board}
    r, s = card // 4, card % 4
    if r in ranks:
        return "pairs_board"
    if sum(1 for c in board if c % 4 == s) >= 2:
        return "flush"
    if _straight_possible(ranks | {r}) and not _straight_possible(ranks):
        return "straight"
    if r > max(ranks):
        return "overcard"
    return "blank"


def _straight_possible(ranks: set[int]) -> bool:
    """Three ranks within one five-rank window (the ace also low)."""
    vals = set(ranks) | ({-1} if 12 in ranks else set())
    return any(len(vals & set(range(lo, lo + 5))) >= 3 for lo in range(-1, 9))


@dataclass
class FlopLine:
    """A flop's report at a line: its stats, and per card of the street (``cards``: card
    name as dealt → stats; a class of suit-isomorphic cards once, with the class's reach,
    under the card the tree deals read back through the line's suit map) when asked."""

    stats: Stats
    cards: dict[str, Stats]
    by_rank: dict[str, Stats]
    by_relation: dict[str, Stats]


def flop_line(
    ts: TreeSummary, flop: Sequence[int], steps: Sequence[str], street: int | None = None
) -> FlopLine | tuple[int, list[str]]:
    """``ts``'s report at ``steps`` (``street``: 1 turn, 2 river, to group by that card), or
    the index of the first step that matched nothing and what was offered there."""
    matches, got, options = walk(ts, steps)
    if not matches:
        return got, options
    parts = [(node_stats(ts, m.node), m.mult) for m in matches]
    stats = combine(parts, sum_reach=True)
    stats.flops = 1
    cards: dict[str, Stats] = {}
    by_rank: dict[str, Stats] = {}
    by_rel: dict[str, Stats] = {}
    if street is not None:
        per_card: dict[int, list[tuple[Stats, float]]] = {}
        ranks: dict[str, list[tuple[Stats, float]]] = {}
        rels: dict[str, list[tuple[Stats, float]]] = {}
        for m, part in zip(matches, parts, strict=True):
            if len(m.cards) < street:
                continue
            card = m.cards[street - 1]  # the tree's frame: its relation to the board as dealt
            before = [*flop, *m.cards[: street - 1]]
            per_card.setdefault(m.real[street - 1], []).append(part)  # named as dealt
            ranks.setdefault(RANKS[card // 4], []).append(part)
            rels.setdefault(card_relation(card, before), []).append(part)
        cards = {card_str(c): combine(v, sum_reach=True) for c, v in per_card.items()}
        by_rank = {k: combine(v, sum_reach=True) for k, v in ranks.items()}
        by_rel = {k: combine(v, sum_reach=True) for k, v in rels.items()}
    return FlopLine(stats, cards, by_rank, by_rel)


def over_flops(items: Iterable[tuple[Stats, float]]) -> Stats:
    """Flops' stats with their weights as one (module doc)."""
    items = list(items)
    out = combine(items, sum_reach=False)
    out.weight = sum(w for _s, w in items)
    out.flops = len(items)
    return out


def difference(a: Stats, b: Stats) -> dict[str, Any]:
    """``a − b``: the record's numbers (an action one lacks counts as 0), EV also as % of
    the pot (``ev_pct_pot``)."""
    acts = dict.fromkeys([*a.mix, *b.mix])
    d: dict[str, Any] = {
        "reach": a.reach - b.reach,
        "mix": {k: a.mix.get(k, 0.0) - b.mix.get(k, 0.0) for k in acts},
        "ev": [x - y for x, y in zip(a.ev, b.ev, strict=True)],
        "equity": [x - y for x, y in zip(a.equity, b.equity, strict=True)],
        "eqr": [x - y for x, y in zip(a.eqr, b.eqr, strict=True)],
    }
    pot = a.pot if math.isfinite(a.pot) else b.pot
    d["ev_pct_pot"] = [100.0 * x / pot if pot and math.isfinite(pot) else math.nan for x in d["ev"]]
    return d


def describe_miss(steps: Sequence[str], at: int, options: Sequence[str] = ()) -> str:
    """The ``--line`` message of a line that matches nothing at step ``at`` (``options``:
    what the trees offer there)."""
    before = " ".join(_show(s) for s in steps[:at]) or "the flop root"
    there = f" (there: {', '.join(options)})" if options else ""
    return f"no flop's tree has {_show(steps[at])!r} after {before}{there}"


def _show(step: str) -> str:
    return step[2:] if step.startswith("d:") else step


def card_ints(text: str) -> list[int]:
    """A flop's cards (``AsKh7d``) as indices."""
    return [parse_card(text[i : i + 2]) for i in range(0, len(text), 2)]


def finite(x: float) -> float | None:
    return x if isinstance(x, float) and math.isfinite(x) else None
