"""Rake (``HoldemSpec.rake_pct``, ``rake_cap``): exact in the engine's payoffs, checked
against an independent brute force; today's numbers bit for bit without it; its EVs; and the
spot definitions that carry it (CLI, presets, batch templates).

The brute force here reads only the game's tree arrays (kind, player, children, payoffs,
strategy offsets, boards), the hands' cards and weights, and hand strengths from
:func:`solver.handeval.rank_batch`; it computes the rake from the pot itself and never calls
:mod:`solver.cfr`. It enumerates every deal, every river card of a turn spot, and every
runout of an all-in. (The sampled solvers' scalar payoffs are checked against the vector
walk's, exactly, in ``tests/test_sampling.py``'s raked spots.)"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from functools import cache

import numpy as np
import numpy.typing as npt
import pytest
from cli_helpers import run

from solver import solve
from solver.batch.spec import BatchSpec
from solver.cfr.bestresponse import best_response_values, expected_values, exploitability
from solver.cfr.layout import uniform_strategy
from solver.files.presets import PresetError, load_preset, parse_preset
from solver.games import make_game
from solver.games.holdem import HoldemSpec, SpecError, build_holdem, validate
from solver.games.model import CHANCE, DECISION, FIXED, RUNOUT, SHOWDOWN, Game
from solver.poker.cards import parse_board, parse_card
from solver.poker.handeval import rank_batch

Array = npt.NDArray[np.float64]

RIVER = HoldemSpec(
    board="Td9d6hQc2s",
    pot=100,
    stack=300,
    oop_range="AA, QQ, T9s, 66, AQs, KJs",
    ip_range="KK, JJ, 99, AQo, QJs, 87s",
    bets="50%, a",
    raises="a",
    raise_cap=1,
    rake_pct=10,  # folds and checks rake 10; a called half pot 20; an all-in 70, capped at 25
    rake_cap=25,
    name="raked river",
)
TURN = HoldemSpec(  # all-in on the turn (a runout) and river play after a call or checks
    board="Td9d6hQc",
    pot=100,
    stack=150,
    oop_range="AA, T9s, 87s, QJs",
    ip_range="KK, QQ, AJs, 55",
    bets="a",
    raises="a",
    raise_cap=1,
    rake_pct=5,
    rake_cap=6,  # a checked-down turn rakes 5, any bet's pot (≥ 200) the cap
    isomorphism=False,
    name="raked turn",
)


# ----- the brute force ---------------------------------------------------------------------------
def _rake(pot: float, pct: float, cap: float) -> float:
    r = pct / 100.0 * pot
    return min(r, cap) if cap > 0 else r


class Brute:
    """Each player's best-response value and value under a profile, by enumeration."""

    def __init__(self, game: Game, spec: HoldemSpec, sigma: Array) -> None:
        self.g, self.t, self.sigma = game, game.tree, sigma
        self.pct, self.cap = float(spec.rake_pct), float(spec.rake_cap)
        self.board = parse_board(spec.board)
        self.cards = [
            [tuple(int(c) for c in game.hands.cards[p, h]) for h in range(game.num_hands[p])]
            for p in range(2)
        ]
        self.w = [game.hands.weights[p, : game.num_hands[p]] for p in range(2)]
        self.parents = game.parents

    @cache  # noqa: B019 (one brute force per test)
    def strength(self, board: tuple[int, ...], p: int, h: int) -> int:
        row = np.array([[*board, *self.cards[p][h]]], dtype=np.int64)
        return int(rank_batch(row)[0])

    def dealt(self, node: int) -> tuple[int, ...]:
        """The board at ``node``: the spot's plus the cards dealt on the way (labels d:Xx)."""
        out = list(self.board)
        n = node
        while n > 0:
            label = self.g.labels[n]
            if label.startswith("d:"):
                out.append(parse_card(label[2:]))
            n = int(self.parents[n])
        return tuple(out)

    def showdown(self, board: tuple[int, ...], p: int, hp: int, j: int, a: float) -> float:
        """``p``'s payoff at a showdown on a 5-card board worth ``a`` (each player's chips)."""
        r = _rake(2 * a, self.pct, self.cap)
        mine, theirs = self.strength(board, p, hp), self.strength(board, 1 - p, j)
        if mine > theirs:
            return a - r
        return -a if mine < theirs else -r / 2

    def payoff(self, node: int, p: int, hp: int, j: int) -> float:
        t = self.t
        kind = int(t.kind[node])
        a = float(t.payoff[node])
        if kind == FIXED:
            u = a if p == 0 else -a
            return u - _rake(2 * abs(a), self.pct, self.cap) if u > 0 else u
        board = self.dealt(node)
        if kind == SHOWDOWN:
            return self.showdown(board, p, hp, j, a)
        assert kind == RUNOUT
        used = set(board) | set(self.cards[p][hp]) | set(self.cards[1 - p][j])
        rest = [c for c in range(52) if c not in used]
        outs: list[tuple[int, ...]]
        if len(board) == 4:
            outs = [(c,) for c in rest]
        else:
            outs = [(c, d) for i, c in enumerate(rest) for d in rest[i + 1 :]]
        return sum(self.showdown((*board, *o), p, hp, j, a) for o in outs) / len(outs)

    def value(self, node: int, p: int, hp: int, reach: Array, best: bool) -> float:
        """Σ_j reach[j] · p's value at ``node`` with hand ``hp`` against hand j, the opponent
        playing σ and ``p`` playing σ or its best response (one action for all j: p's
        information set is (node, hp))."""
        t = self.t
        kind = int(t.kind[node])
        opp = 1 - p
        kids = range(int(t.first_child[node]), int(t.first_child[node] + t.num_children[node]))
        if kind in (FIXED, SHOWDOWN, RUNOUT):
            return sum(
                float(reach[j]) * self.payoff(node, p, hp, j)
                for j in range(len(reach))
                if reach[j] != 0
            )
        if kind == CHANCE:
            total = 0.0
            for c in kids:
                card = parse_card(self.g.labels[c][2:])
                if card in self.cards[p][hp]:
                    continue
                blocked = np.array([card in cj for cj in self.cards[opp]])
                # two hands and a 4-card board leave 44 river cards, whatever they are
                total += self.value(c, p, hp, np.where(blocked, 0.0, reach) / 44.0, best)
            return total
        assert kind == DECISION
        who = int(t.player[node])
        off, nh = int(t.offset[node]), self.g.num_hands[who]
        if who == p:
            vals = [self.value(c, p, hp, reach, best) for c in kids]
            if best:
                return max(vals)
            return sum(self.sigma[off + k * nh + hp] * v for k, v in enumerate(vals))
        return sum(
            self.value(c, p, hp, reach * self.sigma[off + k * nh : off + (k + 1) * nh], best)
            for k, c in enumerate(kids)
        )

    def totals(self, best: bool) -> tuple[float, float]:
        """(player 0's, player 1's) expected value: best responses or the profile's."""
        out = []
        for p in range(2):
            opp = 1 - p
            total = 0.0
            for hp, cp in enumerate(self.cards[p]):
                compatible = np.array([not set(cp) & set(cj) for cj in self.cards[opp]])
                reach = np.where(compatible, self.w[opp], 0.0) * self.w[p][hp]
                total += self.value(0, p, hp, reach, best)
            norm = sum(
                self.w[0][h0] * self.w[1][h1]
                for h0, c0 in enumerate(self.cards[0])
                for h1, c1 in enumerate(self.cards[1])
                if not set(c0) & set(c1)
            )
            out.append(total / norm)
        return out[0], out[1]


def _profile(game: Game, iterations: int = 15) -> Array:
    """A profile far from equilibrium (best responses gain), from a short solve."""
    return solve(game, "dcfr", iterations=iterations, check_every=iterations).average_strategy()


@pytest.mark.parametrize("spec", [RIVER, TURN], ids=["river", "turn"])
def test_exploitability_is_nashconv_against_brute_force(spec: HoldemSpec) -> None:
    game = build_holdem(spec)
    assert game.has_rake and not math.isclose(float(game.tree.rake.max()), 0.0)
    sigma = _profile(game)
    brute = Brute(game, spec, sigma)
    br, ev = brute.totals(best=True), brute.totals(best=False)
    assert best_response_values(game, sigma) == pytest.approx(br, abs=1e-9)
    assert expected_values(game, sigma) == pytest.approx(ev, abs=1e-9)
    nashconv = (br[0] - ev[0]) + (br[1] - ev[1])
    assert exploitability(game, sigma) == pytest.approx(nashconv / 2, abs=1e-9)
    assert nashconv > 1.0  # the profile is exploitable: the check has teeth
    assert ev[0] + ev[1] < -1.0  # and the rake is paid (not zero-sum)


def test_suit_isomorphism_keeps_the_raked_values() -> None:
    """The turn spot dealt by suit classes (mirrored children) values uniform play as the
    full game does."""
    suited = replace(TURN, board="Td9d6dQd")  # hearts, spades and clubs interchangeable
    iso = build_holdem(replace(suited, isomorphism=True))
    full = build_holdem(suited)
    assert iso.has_isomorphism and iso.num_nodes < full.num_nodes
    for fn in (best_response_values, expected_values):
        got = fn(iso, uniform_strategy(iso))
        want = fn(full, uniform_strategy(full))
        assert got == pytest.approx(want, abs=1e-9), fn.__name__


def test_threads_give_the_same_raked_numbers() -> None:
    """A pass split over threads below the turn's chance node (runouts as tasks) values the
    raked terminals as one thread does."""
    game = build_holdem(TURN)
    one, two = (solve(game, "dcfr", iterations=12, check_every=4, threads=n) for n in (1, 2))
    got = [c.exploitability for c in two.history]
    assert got == pytest.approx([c.exploitability for c in one.history], abs=1e-9)
    assert two.ev == pytest.approx(one.ev, abs=1e-9)


def test_evs_sum_to_the_pot_less_the_expected_rake() -> None:
    game = build_holdem(RIVER)
    result = solve(game, "dcfr", iterations=40, check_every=20)
    sigma = result.average_strategy()
    ev = Brute(game, RIVER, sigma).totals(best=False)
    expected_rake = -(ev[0] + ev[1])  # what the house takes on average, by enumeration
    assert 9.0 < expected_rake < 25.0  # between the fold's 10 and the cap
    assert sum(result.ev) == pytest.approx(float(RIVER.pot) - expected_rake, abs=1e-9)
    checkpoint = result.history[-1]
    assert checkpoint.as_dict(game)["exploitability_kind"] == "nashconv/2"
    assert checkpoint.exploitability == pytest.approx(exploitability(game, sigma), abs=1e-9)


# ----- no rake: today's numbers ------------------------------------------------------------------
# srp-river, dcfr-tuned, 20 iterations, a check every 5: the exploitability of each check as
# the engine computed it before rake existed (commit 3af78ff). Numba compiles for the host
# CPU, so the last bits differ between machines (FMA, vector width): the old figures hold to
# BITS_TOLERANCE, far below what any change of the arithmetic itself moves (≥ 1e-6 here);
# bit-for-bit equality is checked between two runs on this machine instead.
BEFORE_RAKE = [
    177.6459736844495,
    66.86761552330036,
    20.75582427838024,
    18.324232888152928,
    9.162045458213578,
]
BITS_TOLERANCE = 1e-9  # relative: ~1e4 float64 roundings of the summed values, with margin


def test_no_rake_gives_todays_numbers() -> None:
    spec = load_preset("srp-river").holdem
    assert spec is not None and spec.rake_pct == 0
    plain = build_holdem(spec)
    zero = build_holdem(replace(spec, rake_pct="0%", rake_cap=30))
    assert not plain.has_rake and not zero.has_rake and not np.any(zero.tree.rake)
    runs = [solve(g, "dcfr-tuned", iterations=20, check_every=5) for g in (plain, zero)]
    for r in runs:
        got = [c.exploitability for c in r.history]
        assert got == pytest.approx(BEFORE_RAKE, rel=BITS_TOLERANCE)
        assert "exploitability_kind" not in r.history[-1].as_dict(r.game)
    # the zero-rake tree runs the same arithmetic as the plain one: identical bits, same host
    first, second = ([c.exploitability.hex() for c in r.history] for r in runs)
    assert first == second
    a, b = (r.average_strategy() for r in runs)
    assert a.tobytes() == b.tobytes()
    assert runs[0].ev == runs[1].ev


def test_rake_terminals_and_the_cap() -> None:
    game = build_holdem(RIVER)
    t = game.tree
    terminal = t.kind >= FIXED
    assert np.all(t.rake[~terminal] == 0)
    pot = 2 * np.abs(t.payoff[terminal])  # each player's matched chips, twice
    assert np.array_equal(t.rake[terminal], np.minimum(0.1 * pot, 25.0))
    fold = game.find(("b:50", "f"))  # 50 into 100, folded: the called pot is 100
    assert t.rake[fold] == 10.0
    uncapped = build_holdem(replace(RIVER, rake_cap=0))
    allin = uncapped.find(("b:300", "c"))
    assert uncapped.tree.rake[allin] == pytest.approx(70.0)
    assert game.meta["rake_pct"] == 10.0 and game.meta["rake_cap"] == 25.0
    assert "rake 10 % capped at 25 chips" in game.description


# ----- the spot's definition ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("rake_pct", -1, "rake_pct: must be ≥ 0, got -1"),
        ("rake_pct", 101, "rake_pct: 101 % is too large (at most 100 %)"),
        ("rake_pct", "five", "rake_pct: 'five' is not a number"),
        ("rake_cap", -5, "rake_cap: must be ≥ 0, got -5"),
        ("rake_cap", math.nan, "rake_cap: nan is not a finite number"),
    ],
)
def test_bad_rake_is_named(field: str, value: object, message: str) -> None:
    with pytest.raises(SpecError) as err:
        validate(replace(RIVER, **{field: value}))  # type: ignore[arg-type]
    assert err.value.field == field and str(err.value) == message


def test_rake_text_takes_a_percent_sign() -> None:
    setup = validate(replace(RIVER, rake_pct=" 2.5 % ", rake_cap="30"))  # type: ignore[arg-type]
    assert (setup.spec.rake_pct, setup.spec.rake_cap) == (2.5, 30.0)


def test_games_without_rake_refuse_it_by_name() -> None:
    for name, options in (("leduc", {"rake_pct": 5}), ("preflop", {"rake_cap": 3})):
        with pytest.raises(SpecError) as err:
            make_game(name, **options)
        assert err.value.field in options and "no rake" in str(err.value)


def _cli_json(*args: str) -> list[dict]:
    done = run("solve", *args, "--iterations", "10", "--every", "10", "--json")
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_cli_rake_flags() -> None:
    spot = ["--board", "Td9d6hQc2s", "--pot", "100", "--stack", "300", "--oop-range",
            "AA, QQ, T9s", "--ip-range", "KK, JJ, AQo", "--bets", "50%, a",
            "--raises", "a"]  # fmt: skip
    final = _cli_json(*spot, "--rake", "5%", "--rake-cap", "30")[-1]
    assert final["exploitability_kind"] == "nashconv/2"
    same = _cli_json(*spot, "--rake", "5", "--rake-cap", "30")[-1]
    assert same["ev"] == final["ev"] and sum(final["ev"]) < 100.0
    plain = _cli_json(*spot)[-1]
    assert "exploitability_kind" not in plain and sum(plain["ev"]) == pytest.approx(100.0)
    over_preset = _cli_json("--preset", "srp-river", "--rake", "3%")[-1]
    assert over_preset["exploitability_kind"] == "nashconv/2"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--rake", "abc"], "error: --rake: 'abc' is not a number"),
        (["--rake", "150%"], "error: --rake: 150 % is too large (at most 100 %)"),
        (["--rake", "5", "--rake-cap", "-1"], "error: --rake-cap: must be ≥ 0, got '-1'"),
    ],
)
def test_cli_bad_rake_is_exit_2_naming_the_flag(args: list[str], message: str) -> None:
    spot = ["--board", "Td9d6hQc2s", "--pot", "100", "--stack", "300", "--oop-range", "AA",
            "--ip-range", "KK"]  # fmt: skip
    for where in (spot, ["--preset", "srp-river"]):
        done = run("solve", *where, *args, "--iterations", "1")
        assert done.returncode == 2
        assert done.stderr.strip() == message
        sized = run("tree", *where, *args)  # the size estimate checks them as a solve does
        assert sized.returncode == 2
        assert sized.stderr.strip() == message


@pytest.mark.parametrize("game", [["--game", "leduc"], ["--game", "preflop"]])
def test_cli_rake_refused_for_games_without_it(game: list[str]) -> None:
    done = run("solve", *game, "--rake", "5%", "--iterations", "1")
    assert done.returncode == 2
    assert done.stderr.startswith("error: --rake: only for hold'em spots")


PRESET = """
name = "raked river"
game = "holdem"
[holdem]
board = "Td9d6hQc2s"
pot = 100
stack = 300
oop_range = "AA, QQ, T9s, 66, AQs, KJs"
ip_range = "KK, JJ, 99, AQo, QJs, 87s"
bets = "50%, a"
raises = "a"
raise_cap = 1
rake_pct = "10%"
rake_cap = 25
"""


def test_preset_round_trip() -> None:
    preset = parse_preset(PRESET, source="raked.toml")
    assert preset.holdem is not None
    game = preset.build()
    want = build_holdem(RIVER)
    assert np.array_equal(game.tree.rake, want.tree.rake) and game.has_rake
    with pytest.raises(PresetError, match=r"raked\.toml: holdem\.rake_pct: must be ≥ 0"):
        parse_preset(PRESET.replace('"10%"', "-3"), source="raked.toml")
    toy = 'name = "x"\ngame = "leduc"\nrake_pct = 5\n'
    with pytest.raises(PresetError, match=r"x\.toml: rake_pct: .*no rake"):
        parse_preset(toy, source="x.toml")
    pre = 'name = "p"\ngame = "preflop"\n[preflop]\nrake_cap = 5\n'
    with pytest.raises(PresetError, match=r"p\.toml: rake_cap: .*no rake"):
        parse_preset(pre, source="p.toml")


def test_batch_template_round_trip() -> None:
    spec = BatchSpec(template=replace(RIVER, board="", rake_pct="5%", rake_cap=30))
    back = BatchSpec.from_json(spec.to_json())
    assert back == spec and back.template.rake_pct == "5%"
    assert back.identity()["template"]["rake_pct"] == 5.0
    assert back.identity() != BatchSpec(template=replace(spec.template, rake_cap=0)).identity()
    # a database made before rake existed keeps its identity (no rake fields in it)
    plain = BatchSpec(template=replace(RIVER, board="", rake_pct=0, rake_cap=0))
    assert "rake_pct" not in plain.identity()["template"]
    old = json.loads(plain.to_json())
    for key in ("rake_pct", "rake_cap"):
        del old["template"][key]
    assert BatchSpec.from_json(json.dumps(old)).fingerprint() == plain.fingerprint()


# ----- the app's Set up form ---------------------------------------------------------------------
def test_setup_form_rake_fields() -> None:
    from app_helpers import page

    from app import spec as S
    from app import state

    at = page("setup")
    at.run()
    assert not at.exception
    assert (at.text_input(key=state.RAKE).value, at.text_input(key=state.RAKE_CAP).value) == (
        "0",
        "0",
    )
    at.text_input(key=state.RAKE).set_value("5%").run()
    at.text_input(key=state.RAKE_CAP).set_value("30").run()
    assert not at.error and at.metric  # valid: the tree's estimate shows
    assert any("NashConv/2" in c.value for c in at.caption)
    at.text_input(key=state.RAKE).set_value("150").run()
    assert [e.value for e in at.error] == [
        "Rake (% pot): must be from 0 to 100, got 150 (0 = no rake)."
    ]
    assert at.text_input(key=state.RAKE).value == "150" and not at.metric
    at.text_input(key=state.RAKE).set_value("5").run()
    at.text_input(key=state.RAKE_CAP).set_value("-2").run()
    assert [e.value for e in at.error] == [
        "Rake cap (chips): must be from 0 to 1,000,000,000, got -2 (0 = no cap)."
    ]
    # the form's numbers make the spec Solve builds, and a raked spot is another game
    values, errors = S.read_numbers({**S.form_values(RIVER), "rake": "7.5%", "rake_cap": "0"})
    assert not errors
    spec = S.spec_from_form(values, RIVER)
    assert (spec.rake_pct, spec.rake_cap) == (7.5, 0)
    assert not S.same_game(S.holdem_source(spec), S.holdem_source(RIVER))
    assert S.same_game(S.holdem_source(RIVER), S.holdem_source(replace(RIVER, rake_pct="10%")))


def test_batch_flags_carry_the_rake() -> None:
    from solver.batch.cli import spec_from_args
    from solver.cli import commands as cli

    args = cli._build_parser().parse_args(
        ["batch", "--preset", "srp-flop", "--rake", "5%", "--rake-cap", "30", "--db", "x.db"]
    )
    spec = spec_from_args(args, cli._BATCH_SPOT)
    assert (spec.template.rake_pct, spec.template.rake_cap) == ("5%", "30")
    assert spec.identity()["template"]["rake_pct"] == 5.0
    flags = ["batch", "--pot", "100", "--stack", "100", "--oop-range", "AA", "--ip-range",
             "KK", "--rake", "2.5", "--db", "x.db"]  # fmt: skip
    spec = spec_from_args(cli._build_parser().parse_args(flags), cli._BATCH_SPOT)
    assert (
        spec.template.rake_pct == "2.5"
        and validate(replace(spec.template, board="AhKd7c")).spec.rake_pct == 2.5
    )
