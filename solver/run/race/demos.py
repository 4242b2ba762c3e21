"""The ready-made races of the app, the CLI and ``benchmarks/race.py`` (:data:`DEMOS`)."""

from __future__ import annotations

from dataclasses import dataclass

from solver.files.presets import load_preset
from solver.games.model import Game
from solver.run.race.entries import Entry, parse_entries


@dataclass(frozen=True)
class Demo:
    """A one-click race: ``preset`` (a key in ``presets/``), algorithm entries, iterations,
    targets (as :func:`parse_targets` reads them), whether each algorithm stops at the
    hardest target, and a caption saying what to look for (measured: BENCHMARKS.md)."""

    key: str
    title: str
    preset: str
    algorithms: tuple[str, ...]
    iterations: int
    targets: str
    stop_at_target: bool
    caption: str

    def entries(self) -> tuple[Entry, ...]:
        return parse_entries(list(self.algorithms))

    def game(self) -> Game:
        return load_preset(self.preset).build()


DEMOS: tuple[Demo, ...] = (
    Demo(
        key="cfr-vs-cfr+",
        title="CFR vs CFR+",
        preset="leduc",
        algorithms=("cfr", "cfr+"),
        iterations=30_000,
        targets="0.01, 0.003, 0.001",
        stop_at_target=True,
        caption=(
            "Leduc. CFR+ (regrets floored at zero, linearly weighted average) against vanilla "
            "CFR, each stopping at 0.001 chips: watch CFR+ reach every target in an order of "
            "magnitude fewer iterations and CPU seconds (the measured gaps: BENCHMARKS.md, "
            "'CFR vs CFR+')."
        ),
    ),
    Demo(
        key="libratus-endgame",
        title="CFR+ vs LCFR vs DCFR on a Libratus endgame",
        preset="libratus-3-river",
        algorithms=("cfr+", "lcfr", "dcfr"),
        iterations=12_500,
        targets="1%, 0.1%, 0.01%, 0.003%",
        stop_at_target=False,
        caption=(
            "Libratus endgame 3: a river with a small pot (500) and deep stacks (20,000), in "
            "% of the pot. LCFR is strongest early; DCFR stays at or below CFR+ and overtakes "
            "LCFR late, first to the tightest target (the checks where it happens: "
            "BENCHMARKS.md, 'CFR+ vs LCFR vs DCFR on a Libratus endgame')."
        ),
    ),
    Demo(
        key="predictive",
        title="PCFR+ vs APCFR+ vs SAPCFR+ on Leduc",
        preset="leduc",
        algorithms=("cfr+", "pcfr+", "apcfr+", "sapcfr+"),
        iterations=20_000,
        targets="1e-4, 1e-5, 1e-6",
        stop_at_target=False,
        caption=(
            "Leduc, with plain CFR+ as the reference. The prediction hurts PCFR+ here; "
            "scaling it down — per infoset (APCFR+) or by a fixed 1/3 (SAPCFR+) — fixes it: "
            "both stay level with CFR+ at first, then pull well below it (by how much: "
            "BENCHMARKS.md, 'PCFR+ vs APCFR+ vs SAPCFR+ on Leduc')."
        ),
    ),
    Demo(
        key="averaging-delay",
        title="CFR+ averaging delay 0 vs 100",
        preset="leduc",
        algorithms=("cfr+", "cfr+:delay=100"),
        iterations=5_000,
        targets="0.01, 0.001, 0.0001",
        stop_at_target=False,
        caption=(
            "Leduc. CFR+ whose average skips the first 100 iterations: uniform until then, it "
            "catches up quickly and then stays below plain CFR+ (BENCHMARKS.md, 'CFR+ "
            "averaging delay 0 vs 100')."
        ),
    ),
    Demo(
        key="mccfr",
        title="MCCFR vs full-width CFR on Leduc, by nodes touched",
        preset="leduc",
        algorithms=("cfr", "mccfr-cs", "mccfr-es", "dmccfr"),
        iterations=1_000_000,
        targets="0.3, 0.1, 0.03",
        stop_at_target=True,
        caption=(
            "Leduc, read by nodes touched as each engine counts them: the full-width engine "
            "walks a node once for all hands together, the samplers once per dealt pair, so a "
            "node is not the same work. Chance sampling needs a few times CFR's nodes; "
            "external sampling and discounted MCCFR, which play the full game (every card "
            "dealt), need far more (the counts: BENCHMARKS.md, 'MCCFR vs full-width CFR on "
            "Leduc, by nodes touched')."
        ),
    ),
    Demo(
        key="pruning",
        title="CFR pruning: none, partial, interval RBP, Total RBP",
        preset="leduc",
        algorithms=("cfr", "cfr:pruning=none", "cfr:pruning=interval", "cfr:pruning=total"),
        iterations=10_000,
        targets="0.03, 0.01, 0.003",
        stop_at_target=True,
        caption=(
            "Leduc, vanilla CFR four ways, read by nodes touched. Partial pruning (the "
            "default: skip what the opponent never reaches) gives exactly the numbers of no "
            "pruning with fewer nodes; interval RBP skips a little more; Total RBP's checks "
            "cost more nodes than it saves on a game this small (BENCHMARKS.md, 'CFR pruning: "
            "none, partial, interval RBP, Total RBP'; docs/pruning.md)."
        ),
    ),
)


def demo(key: str) -> Demo:
    """The demo called ``key``."""
    for d in DEMOS:
        if d.key == key:
            return d
    raise KeyError(f"unknown demo {key!r} (known: {', '.join(d.key for d in DEMOS)})")
