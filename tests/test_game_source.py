"""solver.games.source: the typed game a request describes. Its dicts are today's save and
session format (built here the way the code built them before), its key is the app's "same
game" rule, its games are the builders' games, a crafted dict is refused naming the field,
and a Solve in the app validates its spec once."""

from __future__ import annotations

import json
from dataclasses import asdict, replace

import numpy as np
import pytest

from solver.files.presets import list_presets
from solver.games import GAMES, make_game
from solver.games.holdem import build_holdem
from solver.games.preflop import PreflopSpec, build_preflop
from solver.games.source import (
    HoldemSource,
    PreflopSource,
    SourceError,
    ToySource,
    from_dict,
)
from solver.games.spec import HoldemSpec

RIVER = HoldemSpec(
    board="Td9d6hQc2s", pot=200, stack=900, oop_range="66+, AJs+", ip_range="QQ-22, AQs+",
    big_blind=10, bets="50%, a", raises="a",
)  # fmt: skip
PRESETS = {p.key: p for p in list_presets()}


def _old_preflop_dict(spec: PreflopSpec) -> dict:
    """The dict solver/files/export.preflop_source built (before the typed source)."""
    data = asdict(spec)
    for key in ("raise_sizes", "sb_range", "bb_range"):
        value = data[key]
        if value is not None and not isinstance(value, str):
            data[key] = [float(x) for x in np.asarray(value, dtype=np.float64).ravel()]
    return {"kind": "preflop", "spec": data}


def _holdem_specs() -> list[HoldemSpec]:
    from solver.poker.ranges import parse_range

    weights = [0.5 * float(x) for x in parse_range("AKo, 77")]
    return [
        RIVER,
        replace(RIVER, sizes={"river": {"ip": {"bets": "33%"}}}, donks="25%", rake_pct="5%"),
        replace(RIVER, oop_weights=weights, name="weights"),
        *(p.holdem for p in PRESETS.values() if p.holdem is not None),
    ]


def _preflop_specs() -> list[PreflopSpec]:
    return [
        PreflopSpec(),
        PreflopSpec(stack_bb=15, tree="raise-jam", raise_sizes=(2.0, 3.0), sb_range="22+"),
        PreflopSpec(tree="raise-jam", raise_sizes="2x, 3", bb_range=np.full(1326, 0.5)),
        *(p.preflop for p in PRESETS.values() if p.preflop is not None),
    ]


def _json_equal(a: object, b: object) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_toy_dict_round_trips(name: str) -> None:
    old = {"kind": "toy", "name": name}
    assert ToySource(name).to_dict() == old
    back = from_dict(old)
    assert isinstance(back, ToySource) and back.to_dict() == old


def test_holdem_dict_is_todays_and_round_trips() -> None:
    for spec in _holdem_specs():
        old = {"kind": "holdem", "spec": asdict(spec)}  # app/spec.holdem_source's dict
        source = HoldemSource(spec)
        assert _json_equal(source.to_dict(), old)
        back = from_dict(json.loads(json.dumps(old)))  # as a save's JSON holds it
        assert isinstance(back, HoldemSource) and back.setup is not None
        assert _json_equal(back.to_dict(), old)


def test_preflop_dict_is_todays_and_round_trips() -> None:
    for spec in _preflop_specs():
        old = _old_preflop_dict(spec)
        assert _json_equal(PreflopSource(spec).to_dict(), old)
        back = from_dict(json.loads(json.dumps(old)))
        assert isinstance(back, PreflopSource) and back.setup is not None
        assert _json_equal(back.to_dict(), old)


def test_export_and_app_build_the_same_dicts() -> None:
    """The save's ``game`` metadata (solver.files.export) and the app's are the typed
    source's dicts."""
    from app import spec as S
    from solver.files.export import game_source, preflop_source

    game = make_game("kuhn")
    assert game_source(game) == {"kind": "toy", "name": "kuhn"}
    assert _json_equal(game_source(game, holdem=RIVER), {"kind": "holdem", "spec": asdict(RIVER)})
    assert _json_equal(S.holdem_source(RIVER), {"kind": "holdem", "spec": asdict(RIVER)})
    for spec in _preflop_specs():
        assert _json_equal(preflop_source(spec), _old_preflop_dict(spec))
        assert _json_equal(game_source(game, preflop=spec), _old_preflop_dict(spec))


def test_holdem_key_is_the_game_not_how_it_was_typed() -> None:
    key = HoldemSource(RIVER).key()
    same = [
        replace(RIVER, name="another name", max_memory_mb=123.0),  # not the game
        replace(RIVER, pot=200.0, stack=900.0, big_blind=10),  # numbers as floats or ints
        replace(RIVER, rake_pct="0%"),  # rake as text
        replace(RIVER, donks="  "),  # empty donk sizes are none
    ]
    for spec in same:
        assert HoldemSource(spec).key() == key, spec
    # a range given as weights is the same game as its text
    from solver.poker.ranges import parse_range

    weights = [float(x) for x in parse_range(RIVER.oop_range)]
    assert HoldemSource(replace(RIVER, oop_weights=weights, oop_range="")).key() == key
    changed = [
        replace(RIVER, pot=210),
        replace(RIVER, stack=800),
        replace(RIVER, board="Td9d6hQc3s"),
        replace(RIVER, oop_range="77+"),
        replace(RIVER, bets="33%, a"),
        replace(RIVER, sizes={"river": {"oop": {"bets": "75%"}}}),
        replace(RIVER, rake_pct=5.0),
        replace(RIVER, isomorphism=False),
    ]
    for spec in changed:
        assert HoldemSource(spec).key() != key, spec


def test_keys_agree_with_the_apps_old_rule() -> None:
    """The app's game_key (the form's view of a spec) gives equal keys exactly when the typed
    source's keys are equal, over hold'em variants and presets."""
    from app import spec as S

    specs = [
        *_holdem_specs(),
        replace(RIVER, name="x", max_memory_mb=10.0),
        replace(RIVER, pot=200.0000001),
        replace(RIVER, big_blind=10.000001),
        replace(RIVER, pot=201),
    ]
    typed = [HoldemSource(s).key() for s in specs]
    app = [S.game_key({"kind": "holdem", "spec": asdict(s)}) for s in specs]
    for i in range(len(specs)):
        for j in range(len(specs)):
            assert (typed[i] == typed[j]) == (app[i] == app[j]), (specs[i], specs[j])


def test_preflop_and_toy_keys() -> None:
    base = PreflopSource(PreflopSpec(tree="raise-jam", raise_sizes=(2.0,), sb_range="22+"))
    assert PreflopSource(replace(base.spec, raise_sizes="2", name="n")).key() == base.key()
    assert PreflopSource(replace(base.spec, sb=1.0, bb=2.0)).key() == base.key()  # in bb
    assert PreflopSource(replace(base.spec, stack_bb=12)).key() != base.key()
    assert PreflopSource(replace(base.spec, sb_range="33+")).key() != base.key()
    assert ToySource("kuhn").key() == ToySource("kuhn").key() != ToySource("leduc").key()
    assert ToySource("kuhn").key() != base.key() != HoldemSource(RIVER).key()


def _same_game(a, b) -> None:
    assert a.num_nodes == b.num_nodes and a.action_size == b.action_size
    assert a.hand_names == b.hand_names
    assert a.name == b.name


def test_build_is_the_builders_game() -> None:
    for name in sorted(GAMES):
        _same_game(ToySource(name).build(), make_game(name))
    _same_game(HoldemSource(RIVER).build(), build_holdem(RIVER))
    _same_game(HoldemSource(RIVER).checked().build(), build_holdem(RIVER))
    for spec in _preflop_specs():
        _same_game(PreflopSource(spec).build(), build_preflop(spec))
        _same_game(PreflopSource(spec).checked().build(), build_preflop(spec))


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([1, 2], "game must be an object"),
        ({"kind": "chess"}, "unknown game kind 'chess'"),
        ({"name": "kuhn"}, "unknown game kind None"),
        ({"kind": "toy", "name": "chess"}, "unknown game 'chess'"),
        ({"kind": "toy"}, "unknown game None"),
        ({"kind": "holdem"}, "hold'em spec missing"),
        ({"kind": "holdem", "spec": {"board": "AsKsQs"}}, "missing field(s) pot, stack"),
        ({"kind": "holdem", "spec": {**asdict(RIVER), "evil": 1}}, "unknown field(s) evil"),
        ({"kind": "holdem", "spec": {**asdict(RIVER), "pot": -5}}, "hold'em spec pot:"),
        ({"kind": "holdem", "spec": {**asdict(RIVER), "board": "XX"}}, "hold'em spec board:"),
        ({"kind": "preflop", "spec": "push-fold"}, "preflop spec missing"),
        ({"kind": "preflop", "spec": {"stack_bb": 1e9}}, "preflop spec stack_bb:"),
        ({"kind": "preflop", "spec": {"rm": 1}}, "preflop spec: unknown field(s) rm"),
    ],
)
def test_from_dict_refuses_a_crafted_source_naming_the_field(data: object, message: str) -> None:
    with pytest.raises(SourceError) as got:
        from_dict(data)
    assert message in str(got.value)


def test_a_solve_validates_its_spec_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The request carries the checked setup: Solve builds the game from it, with no second
    validation (before: the form's check, then the build from the source dict)."""
    from app_helpers import app, no_threads_left, poll

    import solver.games.holdem
    import solver.games.source
    import solver.games.spec
    from app import spec as S
    from app import state

    real = solver.games.spec.validate
    seen: list[float] = []

    def spy(spec, *args, **kwargs):
        if spec.pot == 213:  # this test's spot (no other page or cache has seen it)
            seen.append(spec.pot)
        return real(spec, *args, **kwargs)

    for module in (solver.games.spec, solver.games.holdem, solver.games.source, S):
        monkeypatch.setattr(module, "validate", spy)
    try:
        at = app(**{state.SOURCE: "preset:srp-river"})
        at.run()
        at.session_state["hs_pot"] = "213"
        at.run()
        assert not at.exception
        assert "213" in _header_of(at)  # the Solve page shows the changed spot
        assert seen == [213]  # the form's check
        at.button(key="btn_solve").click().run()
        assert not at.exception and not at.session_state[state.START_ERROR]
        job = at.session_state[state.JOB]
        assert job.game.starting_pot == 213
        poll(at, lambda: job.progress.iteration > 0 or job.progress.finished)
        assert seen == [213]  # built from the request's setup: not checked again
        # the session keeps the save's dict (JOB_SOURCE), the same game as the request
        kept = at.session_state[state.JOB_SOURCE]
        assert kept["kind"] == "holdem" and kept["spec"]["pot"] == 213
        assert S.same_game(kept, HoldemSource(_spec(kept)))
    finally:
        no_threads_left()


def _spec(source: dict) -> HoldemSpec:
    return HoldemSpec(**source["spec"])


def _header_of(at) -> str:
    return next(e.proto.body for e in at.get("html") if "spot-header" in e.proto.body)
