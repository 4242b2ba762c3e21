"""The one table of a hold'em spot's fields (``solver.games.spec.SPOT_FIELDS``): the CLI's
spot flags and the app's form fields are both read from it, so each names a real spec
field, a real flag and a real form widget."""

from __future__ import annotations

import dataclasses

from app import request
from app import spec as app_spec
from solver.cli import commands as cli
from solver.games.holdem import RAKE_FIELDS, SPOT_FIELDS, HoldemSpec


def _solve_flags() -> set[str]:
    parser = cli._build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    solve = sub.choices["solve"]  # type: ignore[index]
    return {a.dest for a in solve._actions}


def test_every_entry_names_a_spec_field_once() -> None:
    fields = {f.name for f in dataclasses.fields(HoldemSpec)}
    names = [f.field for f in SPOT_FIELDS]
    assert len(set(names)) == len(names) and set(names) <= fields
    assert set(RAKE_FIELDS) <= set(names)
    # what a person does not type as one value: per-street sizes, weights, switches
    assert fields - set(names) == {
        "sizes", "name", "oop_weights", "ip_weights", "isomorphism", "collapse_runouts",
    }  # fmt: skip


def test_the_cli_reads_every_flag_from_the_table() -> None:
    flags = _solve_flags()
    assert {f.flag for f in SPOT_FIELDS} <= flags
    assert {
        f.flag: f.field for f in SPOT_FIELDS if f.field != "board"
    } == cli._SPOT_FLAGS | cli._RAKE_FLAGS


def test_the_app_reads_every_form_field_from_the_table() -> None:
    assert {f.form: f.field for f in SPOT_FIELDS} == app_spec.FIELDS
    assert list(request.WIDGET) == [f.form for f in SPOT_FIELDS]
    assert set(app_spec.NUMBERS) <= set(app_spec.FIELDS)
