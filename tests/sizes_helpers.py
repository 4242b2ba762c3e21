"""The small river the sizes tests (issue 47) simplify: the srp-river board and ranges with
one bet and an all-in raise, around a grid of four sizes; as a spec and as CLI flags."""

from __future__ import annotations

from solver.games.holdem import HoldemSpec

OOP = "66+, A8s+, A5s-A4s, AJo+, K9s+, KQo, QTs+, JTs, 96s+, 85s+, 75s+, 65s, 54s"
IP = "QQ-22, AQs-A2s, ATo+, K5s+, KJo+, Q8s+, J8s+, T7s+, 96s+, 86s+, 75s+, 64s+"
SPEC = HoldemSpec(
    board="Td9d6hQc2s",
    pot=200,
    stack=400,
    oop_range=OOP,
    ip_range=IP,
    bets="50%",
    raises="a",
    raise_cap=1,
    name="small river",
)
GRID = "33%, 75%, 150%, a"


def cli_spot(target: str) -> list[str]:
    """``python -m solver sizes`` flags of :data:`SPEC` and :data:`GRID` at OOP's root."""
    return ["--board", SPEC.board, "--pot", "200", "--stack", "400", "--oop-range", OOP,
            "--ip-range", IP, "--bets", "50%", "--raises", "a", "--raise-cap", "1",
            "--grid", GRID, "--nodes", "root", "--target", target]  # fmt: skip
