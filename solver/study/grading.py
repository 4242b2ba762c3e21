"""The trainer's grades and records (:mod:`solver.study.trainer`): the thresholds, the grade of a
decision, a graded :class:`Decision`, a session's :class:`Score` and the CSV/JSON exports.

The grade, first that applies (EV lost = best action's EV − chosen action's EV, chips ≥ 0; the
pot is the chips in the middle before the decision):

* ``Best``: the highest-EV action (within :data:`TIE` chips), or with RNG mode on, the action
  a random draw from the hand's mix picked before the decision;
* ``Correct``: the solution plays the action at least ``correct_pct`` % of the time for this
  hand (default 3.5 %);
* ``Blunder``: EV lost > ``blunder_pct_pot`` % of the pot at the node (default 5 %);
* ``Wrong``: EV lost > ``wrong_pct_pot`` % of the pot (default 1 %);
* ``Inaccuracy``: the rest (rarely played, EV lost ≤ ``wrong_pct_pot`` % of the pot).

**Off the solution's tree.** Where the hero's hand never gets to the node under the solution
(its own reach there is 0: an earlier hero action the solution never takes with it), the
solve's strategy for the hand is a placeholder (the untouched uniform mix), not advice. Such a
decision (:attr:`Decision.off_tree`) has no mix (NaN) and is graded by EV lost alone: ``Best``
within :data:`TIE` of the best EV (RNG mode draws nothing there), never ``Correct``. The EVs
are still Explore's per-hand EVs: each action against the villain's strategy, both playing
``sigma`` after it (the hero's own later play for the hand being the placeholder too).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

from solver.poker.cards import SUITS
from solver.study.dealing import IDENTITY, Perm, shown_card, shown_hand
from solver.study.trainer_args import TrainerError, real

GRADES = ("Best", "Correct", "Inaccuracy", "Wrong", "Blunder")
TIE = 1e-9
"""Chips: an action within this of the best EV is a best action too (ties, rounding)."""


# ----- settings and grades --------------------------------------------------------------------
@dataclass(frozen=True)
class Thresholds:
    """The grades' thresholds: ``correct_pct`` (% of the hand's mix, [0, 100]) from which an
    action is Correct; ``wrong_pct_pot`` and ``blunder_pct_pot`` (% of the pot at the node,
    ``0 ≤ wrong ≤ blunder``) above which EV lost is Wrong, Blunder."""

    correct_pct: float = 3.5
    wrong_pct_pot: float = 1.0
    blunder_pct_pot: float = 5.0

    def __post_init__(self) -> None:
        for name in ("correct_pct", "wrong_pct_pot", "blunder_pct_pot"):
            object.__setattr__(self, name, real(name, getattr(self, name)))
        if not 0.0 <= self.correct_pct <= 100.0:
            raise TrainerError(
                "correct_pct", f"correct_pct must be in [0, 100], not {self.correct_pct}"
            )
        if not 0.0 <= self.wrong_pct_pot <= self.blunder_pct_pot:
            raise TrainerError(
                "wrong_pct_pot",
                f"need 0 ≤ wrong_pct_pot ≤ blunder_pct_pot, not {self.wrong_pct_pot}, "
                f"{self.blunder_pct_pot}",
            )


def grade_of(
    ev_lost_pct_pot: float, frequency_pct: float, best: bool, thresholds: Thresholds
) -> str:
    """The grade of one decision (module doc): ``ev_lost_pct_pot`` EV lost in % of the pot,
    ``frequency_pct`` the solution's frequency of the chosen action for the hand (%; NaN off
    the solution's tree: graded by EV lost alone), ``best`` whether it is the best action (or
    the RNG pick)."""
    if best:
        return "Best"
    if frequency_pct >= thresholds.correct_pct:  # (False for NaN)
        return "Correct"
    if ev_lost_pct_pot > thresholds.blunder_pct_pot:
        return "Blunder"
    if ev_lost_pct_pot > thresholds.wrong_pct_pot:
        return "Wrong"
    return "Inaccuracy"


# ----- what the trainer records ------------------------------------------------------------------
@dataclass(frozen=True)
class Decision:
    """One graded hero decision. ``node`` is the tree node (its suit-isomorphic canonical
    node when the real cards were mapped); ``history``, ``hand`` and ``board`` the dealt
    labels and cards in the solve's suits; ``suits`` the suit permutation the deal was shown
    under (:mod:`solver.study.dealing`; identity when suits are not randomised) and ``line`` the
    line in words as shown; EVs and EV lost in chips, ``pot`` chips before the action;
    ``mix`` the solution's frequencies (sum 1) of ``actions`` for the hero's hand, NaN when
    ``off_tree``: the solution never gets to this node with this hand (module doc)."""

    hand_no: int
    node: int
    history: tuple[str, ...]
    line: str
    player: int
    hand: str
    board: tuple[str, ...]
    pot: float
    actions: tuple[str, ...]  # codes (k, c, f, b:S, r:S)
    names: tuple[str, ...]  # as a player says them
    mix: tuple[float, ...]
    evs: tuple[float, ...]
    chosen: int
    best: int  # index of the highest-EV action
    rng_pick: int | None  # the action RNG mode drew from the mix, or None
    ev_lost: float
    grade: str
    suits: Perm = IDENTITY
    off_tree: bool = False

    @property
    def shown_hand(self) -> str:
        """The hero's hand as the page showed it (under :attr:`suits`)."""
        return shown_hand(self.hand, self.suits)

    @property
    def shown_board(self) -> tuple[str, ...]:
        """The board as the page showed it (under :attr:`suits`)."""
        return tuple(shown_card(c, self.suits) for c in self.board)

    @property
    def ev_lost_pct_pot(self) -> float:
        return 100.0 * self.ev_lost / self.pot if self.pot > 0 else float("nan")

    def row(self, big_blind: float | None = None) -> dict[str, object]:
        """A flat record for CSV and JSON: mixes and EVs as ``{action name: value}``."""
        out: dict[str, object] = {
            k: v for k, v in asdict(self).items() if k not in ("mix", "evs", "actions", "names")
        }
        out["history"] = " ".join(self.history)
        out["board"] = " ".join(self.board)
        out["suits"] = "".join(SUITS[i] for i in self.suits)  # s h d c shown as these
        out["shown_hand"] = self.shown_hand
        out["shown_board"] = " ".join(self.shown_board)
        out["action"] = self.names[self.chosen]
        mix = (None,) * len(self.names) if self.off_tree else self.mix  # no mix: no number
        out["mix"] = dict(zip(self.names, mix, strict=True))
        out["evs"] = dict(zip(self.names, self.evs, strict=True))
        pct = self.ev_lost_pct_pot
        out["ev_lost_pct_pot"] = pct if np.isfinite(pct) else None
        if big_blind:
            out["ev_lost_bb"] = self.ev_lost / big_blind
        return out


@dataclass(frozen=True)
class Score:
    """A session's score: ``hands`` the hero acted in, ``decisions`` graded, EV lost in
    chips (total, per hand, per decision), in % pot (sum of each decision's %, and its mean
    per decision), in bb when the game has a big blind, the grades' counts and the
    ``worst`` decisions (most chips lost first)."""

    hands: int
    decisions: int
    ev_lost: float
    ev_lost_per_hand: float
    ev_lost_per_decision: float
    pct_pot: float
    pct_pot_per_decision: float
    big_blind: float | None
    grades: dict[str, int]
    worst: tuple[Decision, ...]

    def bb(self, chips: float) -> float | None:
        """``chips`` in big blinds (None without a big blind)."""
        return chips / self.big_blind if self.big_blind else None


def score(decisions: Sequence[Decision], big_blind: float | None = None, worst: int = 5) -> Score:
    """The :class:`Score` of ``decisions``."""
    n = len(decisions)
    hands = len({d.hand_no for d in decisions})
    lost = float(sum(d.ev_lost for d in decisions))
    pcts = [d.ev_lost_pct_pot for d in decisions if np.isfinite(d.ev_lost_pct_pot)]
    grades = dict.fromkeys(GRADES, 0)
    for d in decisions:
        grades[d.grade] += 1
    order = sorted(decisions, key=lambda d: -d.ev_lost)
    return Score(
        hands=hands,
        decisions=n,
        ev_lost=lost,
        ev_lost_per_hand=lost / hands if hands else 0.0,
        ev_lost_per_decision=lost / n if n else 0.0,
        pct_pot=float(sum(pcts)),
        pct_pot_per_decision=float(sum(pcts)) / len(pcts) if pcts else 0.0,
        big_blind=big_blind,
        grades=grades,
        worst=tuple(d for d in order[:worst] if d.ev_lost > 0),
    )


CSV_FIELDS = (
    "hand_no", "line", "hand", "board", "pot", "action", "grade", "ev_lost",
    "ev_lost_pct_pot", "ev_lost_bb", "mix", "evs", "node", "history", "player",
    "suits", "shown_hand", "shown_board", "off_tree",
)  # fmt: skip


def to_csv(decisions: Sequence[Decision], big_blind: float | None = None) -> str:
    """The decisions as CSV (one row each; ``mix``/``evs`` as ``name=value`` pairs, chips)."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(CSV_FIELDS), extrasaction="ignore")
    w.writeheader()
    for d in decisions:
        row = d.row(big_blind)
        for k in ("mix", "evs"):
            values = row[k].items()  # type: ignore[attr-defined]
            row[k] = "; ".join(f"{a}={v:.6g}" for a, v in values if v is not None)
        w.writerow(row)
    return buf.getvalue()


def to_json(decisions: Sequence[Decision], big_blind: float | None = None) -> str:
    """The decisions and the score as JSON: ``{"decisions": [...], "score": {...}}`` (an
    off-tree decision's mix as nulls)."""
    s = score(decisions, big_blind)
    summary = {k: v for k, v in asdict(s).items() if k != "worst"}
    summary["worst"] = [d.row(big_blind) for d in s.worst]
    return json.dumps({"decisions": [d.row(big_blind) for d in decisions], "score": summary})
