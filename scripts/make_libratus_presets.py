"""Convert the Libratus endgame files (../shared/data/libratus_endgames) into preset TOML files.

Run once: ``.venv/bin/python scripts/make_libratus_presets.py [DATA_DIR]``. Bets as in the
DCFR paper: the first bet of a round 0.5 × pot, 1 × pot or all-in; later bets and raises
1 × pot or all-in. Stacks 20,000 at the start of the hand, big blind 100.
"""

from __future__ import annotations

import sys
from pathlib import Path

from solver.poker.cards import card_str, read_libratus_endgame

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "libratus_endgames"
STREET = {3: "turn", 4: "river"}


def _floats(values: object) -> str:
    return "[" + ", ".join(repr(float(v)) for v in values) + "]"  # type: ignore[attr-defined]


def main() -> None:
    data = Path(sys.argv[1]) if len(sys.argv) > 1 else DATA
    for k in range(1, 5):
        eg = read_libratus_endgame(data / f"subgame{k}.txt")
        street = STREET[eg.round]
        board = " ".join(card_str(c) for c in eg.board)
        stack = 20_000 - eg.pot // 2
        text = f'''name = "Libratus endgame {k} ({street}, pot {eg.pot})"
description = """Libratus endgame {k} (Brown & Sandholm): {street} {board}, pot {eg.pot}, \\
stacks 20,000, big blind 100. Ranges are Libratus's blueprint reach probabilities. \\
Bets as in the DCFR paper: first bet 0.5x pot, 1x pot or all-in; later bets and raises \\
1x pot or all-in."""
game = "holdem"

[holdem]
board = "{board}"
pot = {eg.pot}
stack = {stack}
big_blind = 100
bets = "50%, 100%, a"
raises = "100%, a"
raise_cap = 20
name = "Libratus endgame {k}"
oop_weights = {_floats(eg.reach[0])}
ip_weights = {_floats(eg.reach[1])}
'''
        out = ROOT / "presets" / f"libratus-{k}-{street}.toml"
        out.write_text(text, encoding="utf-8")
        print(out.relative_to(ROOT))


if __name__ == "__main__":
    main()
