"""A game's tree in a player's words: action names, the line so far and a spot's numbers.

The tree labels actions with codes (``k``, ``c``, ``f``, ``b:S``, ``r:S``, ``d:CARD``); the API,
the CLI and exported files keep them, since scripts rely on them. Everything a person reads
says them as a player would, with one name per action everywhere:

* ``Check``, ``Call``, ``Fold``;
* hold'em: ``Bet 33 % (66)`` — the bet's share of the pot before it (% pot, rounded to a
  whole number) and its chips; ``Raise to 300`` (``r:S`` is the street commitment S);
  ``All-in 900`` for a bet or raise that puts the player's whole stack in;
* toy games (no pot to speak of): ``Bet 1``, ``Raise 2`` (their ``r:S`` raises *by* S).

The line so far reads ``BB check → BTN bet 33 % (66) → BB call · turn 8h → BB check``:
actions joined by arrows, each with its player's name, each dealt card after a dot with its
street.

Heads-up preflop games (:mod:`solver.games.preflop`) read in big blinds: ``SB raise to 2 → BB
all-in 15``; their pot counts the blinds and antes, and a raise to the stack less the ante is
the all-in.

Pure functions of the game (no solve, no Streamlit): the app, a trainer and the CLI share them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solver.games.model import CHANCE, DECISION, FIXED, Game
from solver.study.analysis import investments, node_path
from solver.study.views import board_cards

HOLDEM_PLAYERS = ("OOP", "IP")
"""Default names of hold'em players 0 and 1 (a preset may name them, e.g. BB and BTN)."""
TOY_PLAYERS = ("player 0", "player 1")
STREETS = {3: "flop", 4: "turn", 5: "river"}
"""Street named by the number of board cards once its card is dealt."""
SUITS = {"s": "♠", "h": "♥", "d": "♦", "c": "♣"}
ARROW = " → "
DOT = " · "


PREFLOP_PLAYERS = ("SB", "BB")


def default_players(game: Game) -> tuple[str, str]:
    """The names the app uses for the two players when nobody named them."""
    if is_preflop(game):
        return PREFLOP_PLAYERS
    return HOLDEM_PLAYERS if game.is_holdem else TOY_PLAYERS


def is_preflop(game: Game) -> bool:
    """A heads-up preflop game (:mod:`solver.games.preflop`)."""
    return bool(game.meta.get("preflop"))


def preflop_put_in(game: Game, node: int) -> tuple[float, float, float]:
    """A preflop game at ``node``: (pot, SB's and BB's raise-to amounts), bb. The pot counts
    both blinds and both antes; a call matches the other's amount."""
    ante = float(game.meta.get("ante", 0.0))  # type: ignore[arg-type]
    put = [float(game.meta.get("sb", 0.5)), 1.0]  # type: ignore[arg-type]
    for child in node_path(game, node):
        p = int(game.tree.player[int(game.parents[child])])
        label = game.labels[child]
        if label.startswith("r:"):
            put[p] = float(label[2:])
        elif label == "c":
            put[p] = put[1 - p]
    return put[0] + put[1] + 2 * ante, put[0], put[1]


def node_pot(game: Game, node: int) -> float:
    """Hold'em: chips in the pot at ``node`` (preflop: bb, blinds and antes counted)."""
    if is_preflop(game):
        return preflop_put_in(game, node)[0]
    return investments(game, node)[0]


def _chips(x: float) -> str:
    """Chips as a player reads them: whole numbers without decimals, else up to two."""
    return f"{x:,.0f}" if abs(x - round(x)) < 1e-9 else f"{x:,.2f}".rstrip("0").rstrip(".")


def label_name(
    label: str, pot: float | None = None, all_in: bool = False, holdem: bool = True
) -> str:
    """The name of one action code (module doc): ``pot`` (chips before the action) adds a
    bet's % pot; ``all_in`` names a bet or raise that puts the whole stack in; ``holdem``
    False reads ``r:S`` as a raise by S (toy games)."""
    if label == "f":
        return "Fold"
    if label == "k":
        return "Check"
    if label == "c":
        return "Call"
    if label.startswith("d:"):
        return f"Deal {label[2:]}"
    amount = _amount(label)
    if amount is not None:
        if all_in:
            return f"All-in {_chips(amount)}"
        if label[0] == "r":
            return f"Raise to {_chips(amount)}" if holdem else f"Raise {_chips(amount)}"
        if pot is not None and pot > 0:
            return f"Bet {100 * amount / pot:.0f} % ({_chips(amount)})"
        return f"Bet {_chips(amount)}"
    return label


def first_street_name(label: str, pot: float | None, stack: float | None) -> str:
    """The name of an action code on a hold'em subgame's first street, from the set-up alone
    (no tree: batch reports): ``pot`` is the pot before the street (chips) and a bet or raise
    whose street commitment reaches ``stack`` (chips behind) is ``All-in``."""
    amount = _amount(label)
    all_in = stack is not None and amount is not None and amount >= stack - 1e-9
    return label_name(label, pot, all_in)


def _amount(label: str) -> float | None:
    """The chips of a ``b:S`` or ``r:S`` code, else None."""
    if not label.startswith(("b:", "r:")):
        return None
    try:
        return float(label[2:])
    except ValueError:
        return None


def is_all_in(game: Game, child: int) -> bool:
    """Whether the bet or raise leading to ``child`` puts its player all-in (hold'em: the
    chips that player has put in since the subgame started reach the effective stack)."""
    label = game.labels[child]
    if not game.is_holdem or not label.startswith(("b:", "r:")):
        return False
    player = int(game.tree.player[int(game.parents[child])])
    if is_preflop(game):  # the all-in is a raise to the stack less the (dead) ante
        allin = float(game.meta["stack"]) - float(game.meta.get("ante", 0.0))  # type: ignore[arg-type]
        return float(label[2:]) >= allin - 1e-9
    put_in = investments(game, child)[1 + player]
    return put_in >= float(game.meta.get("stack", np.inf)) - 1e-9  # type: ignore[arg-type]


def child_name(game: Game, child: int) -> str:
    """The name of the action (or card) leading to ``child`` (module doc)."""
    label = game.labels[child]
    parent = int(game.parents[child])
    pot = node_pot(game, parent) if game.is_holdem else None
    return label_name(label, pot, is_all_in(game, child), game.is_holdem)


def action_names(game: Game, node: int) -> list[str]:
    """The names of ``node``'s actions, in children order (``[]`` below a chance node's
    cards is not asked for: a chance node's children are named ``Deal X``)."""
    return [child_name(game, int(c)) for c in game.children(node)]


def _street(game: Game, board_size: int) -> str:
    return STREETS.get(board_size, "card") if game.is_holdem else "board"


def _first_board(game: Game) -> int:
    return len(np.asarray(game.meta["board"])) if game.is_holdem else 0


def line_words(game: Game, node: int, players: tuple[str, str] | None = None) -> str:
    """The line from the root to ``node`` in words: ``BB check → BTN bet 33 % (66) → BB call
    · turn 8h`` ("" at the root). ``players`` names players 0 and 1 (default
    :func:`default_players`)."""
    names = players or default_players(game)
    board = _first_board(game)
    out = ""
    for child in node_path(game, node):
        parent = int(game.parents[child])
        label = game.labels[child]
        if int(game.tree.kind[parent]) == CHANCE:
            board += 1
            out += (DOT if out else "") + f"{_street(game, board)} {label.removeprefix('d:')}"
            continue
        said = child_name(game, child)
        who = names[int(game.tree.player[parent])]
        out += (ARROW if out else "") + f"{who} {said[0].lower()}{said[1:]}"
    return out


@dataclass(frozen=True)
class Spot:
    """What a spot header shows at a node: the board (card names such as ``"Td"``, initial
    board then dealt cards), the pot (chips), the effective stack still behind (chips: the
    smaller of the two stacks left), the stack-to-pot ratio, both players' names, who acts
    (a name, or "" where nobody does), the street, the line so far in words, the big
    blind (chips, for amounts in bb) and what happens at the node. Pot, stack, SPR and big
    blind are None on the toy games (no stacks to speak of)."""

    board: tuple[str, ...]
    pot: float | None
    stack: float | None
    spr: float | None
    players: tuple[str, str]
    to_act: str
    street: str
    line: str
    big_blind: float | None = None
    status: str = ""  # what happens at the node (:func:`node_words`): "BB to act", "showdown"
    blinds: tuple[float, float] | None = None  # preflop: (SB, BB) in bb (then chips are bb)
    ante: float = 0.0  # preflop: per player, bb
    starting_stack: float | None = None  # preflop: each stack before posting, bb
    to_call: float | None = None  # chips the player to act must add to call (None: no bet faced)


def start_spot(
    board: tuple[str, ...],
    pot: float,
    stack: float,
    big_blind: float | None = None,
    players: tuple[str, str] = HOLDEM_PLAYERS,
) -> Spot:
    """The :class:`Spot` at the start of a hold'em subgame from its set-up (board card
    names, pot and effective stack in chips) without building its tree: OOP acts first."""
    spr = stack / pot if pot > 0 else None
    street = STREETS.get(len(board), "")
    status = f"{players[0]} to act"
    return Spot(board, pot, stack, spr, players, players[0], street, "", big_blind, status)


def spot(game: Game, node: int, players: tuple[str, str] | None = None) -> Spot:
    """The :class:`Spot` at ``node``."""
    names = players or default_players(game)
    kind = int(game.tree.kind[node])
    to_act = names[int(game.tree.player[node])] if kind == DECISION else ""
    line = line_words(game, node, names)
    status = node_words(game, node, names)
    if not game.is_holdem:
        board = tuple(lab[2:] for lab in game.history(node) if lab.startswith("d:"))
        return Spot(board, None, None, None, names, to_act, "", line, None, status)
    if is_preflop(game):
        pot, in0, in1 = preflop_put_in(game, node)
        stack = float(game.meta["stack"])  # type: ignore[arg-type]
        ante = float(game.meta.get("ante", 0.0))  # type: ignore[arg-type]
        behind = max(stack - ante - max(in0, in1), 0.0)
        blinds = (float(game.meta.get("sb", 0.5)), 1.0)  # type: ignore[arg-type]
        owe = _owed(game, node, (in0, in1), stack - ante)
        return Spot((), pot, behind, None, names, to_act, "preflop", line, 1.0, status,
                    blinds, ante, stack, owe)  # fmt: skip
    cards = tuple(game.card_names[c] for c in board_cards(game, node))
    pot, inv0, inv1 = investments(game, node)
    behind = max(float(game.meta["stack"]) - max(inv0, inv1), 0.0)  # type: ignore[arg-type]
    bb = game.meta.get("big_blind")
    big_blind = float(bb) if isinstance(bb, (int, float)) and bb > 0 else None
    spr = behind / pot if pot > 0 else None
    street = STREETS.get(len(cards), "")
    owe = _owed(game, node, (inv0, inv1), float(game.meta["stack"]))  # type: ignore[arg-type]
    return Spot(cards, pot, behind, spr, names, to_act, street, line, big_blind, status,
                to_call=owe)  # fmt: skip


def _owed(game: Game, node: int, put: tuple[float, float], stack: float) -> float | None:
    """What the player to act at a decision ``node`` must add to call, having put ``put[p]``
    in of a ``stack`` (an all-in for less is capped there); None when no bet is faced."""
    if int(game.tree.kind[node]) != DECISION:
        return None
    p = int(game.tree.player[node])
    owe = min(put[1 - p], stack) - put[p]
    return owe if owe > 1e-9 else None


def node_words(game: Game, node: int, players: tuple[str, str] | None = None) -> str:
    """What happens at ``node`` in words: ``BTN to act``, ``card to deal``, ``hand over
    (fold)`` or ``showdown``."""
    names = players or default_players(game)
    kind = int(game.tree.kind[node])
    if kind == DECISION:
        return f"{names[int(game.tree.player[node])]} to act"
    if kind == CHANCE:
        return "card to deal"
    if kind == FIXED:
        return "hand over (fold)"
    return "showdown"


def card_text(card: str) -> str:
    """A card with its suit symbol: ``Td`` → ``T♦`` (toy cards without a suit unchanged)."""
    if len(card) >= 2 and card[-1] in SUITS:
        return card[:-1] + SUITS[card[-1]]
    return card
