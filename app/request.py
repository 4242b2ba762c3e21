"""What the Set up form describes now, for every page: the form's widget keys, the
:class:`Request` (the game Solve would build, validated, each error naming its field), and
filling the form from a source (a preset, a toy game, an upload, a solve taken back)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

from app import preflop_spec as PF
from app import spec as S
from app import state
from solver.games.holdem import Estimate, HoldemSpec
from solver.games.preflop import PreflopSpec
from solver.games.source import GameSource, HoldemSource, PreflopSource, ToySource

WIDGET = {k: f"hs_{k}" for k in S.FIELDS}  # form field → widget key
assert WIDGET["board"] == state.BOARD and WIDGET["oop_range"] == state.OOP_RANGE
PF_WIDGET = {  # preflop spec field → widget key (the ranges share the hold'em form's)
    "stack_bb": state.PF_STACK,
    "tree": state.PF_TREE,
    "raise_sizes": state.PF_RAISES,
    "sb": state.PF_SB,
    "bb": state.PF_BB,
    "ante": state.PF_ANTE,
    "sb_range": state.OOP_RANGE,
    "bb_range": state.IP_RANGE,
}


@dataclass(frozen=True)
class Request:
    """What Solve would build now: ``source`` (the typed game, carrying its checked setup:
    Solve builds it without checking it again) is None while input is bad."""

    label: str
    source: GameSource | None
    spec: HoldemSpec | None
    errors: dict[str, str]
    estimate: Estimate | None
    preflop: PreflopSpec | None = None  # a preflop game's spec (then ``spec`` is None)

    @property
    def valid(self) -> bool:
        return self.source is not None and not self.errors


def load_source(source_id: str) -> None:
    """Fill the form with a source's values (on first run and when the game changes)."""
    spec = S.spec_of_source(source_id, state.get(state.UPLOADED))
    if spec is not None:
        for key, value in S.form_values(spec).items():
            state.put(WIDGET[key], value)
        for key, value in S.size_values(spec).items():
            state.put(key, value)
    pre = S.preflop_of_source(source_id, state.get(state.UPLOADED))
    if pre is not None:
        fill_preflop(pre)
    state.put(state.LOADED_FROM, source_id)


def fill_preflop(spec: PreflopSpec) -> None:
    for field, value in PF.form_values(spec).items():
        state.put(PF_WIDGET[field], value)


def show_on_setup(source_id: str, spec: HoldemSpec | PreflopSpec | None) -> None:
    """Make Set up hold ``source_id`` with the form showing ``spec`` as it is (a solve taken
    back after a reload, a resumed save); the source's own values when ``spec`` is None."""
    state.put(state.SOURCE, source_id)
    if spec is None:
        load_source(source_id)
        return
    if isinstance(spec, PreflopSpec):
        fill_preflop(spec)
        state.put(state.LOADED_FROM, source_id)
        return
    for key, value in S.form_values(spec).items():
        state.put(WIDGET[key], value)
    for key, value in S.size_values(spec).items():
        state.put(key, value)
    state.put(state.LOADED_FROM, source_id)


def ensure_form() -> None:
    """Initialise the game choice and form on a session's first run."""
    choices = S.sources()
    if state.get(state.UPLOADED) is not None:
        choices["upload"] = "Uploaded preset"
    if state.get(state.SOURCE) not in choices:
        state.put(state.SOURCE, S.default_source())
    if state.get(state.LOADED_FROM) is None:
        load_source(state.get(state.SOURCE))


_CHECKS: OrderedDict[str, S.Checked] = OrderedDict()
_CHECKS_KEPT = 64
_CHECKS_LOCK = threading.Lock()


def _check_cached(spec: HoldemSpec) -> S.Checked:
    """:func:`app.spec.check` of ``spec``, kept for the last 64 specs (every page run asks
    for the form's request; the spec is checked the first time it is seen). The form's
    specs have ranges as text (numpy would shorten weights in a repr): others are not kept."""
    if spec.oop_weights is not None or spec.ip_weights is not None:
        return S.check(spec)
    key = repr(spec)
    with _CHECKS_LOCK:
        got = _CHECKS.get(key)
        if got is not None:
            _CHECKS.move_to_end(key)
            return got
    got = S.check(spec)
    with _CHECKS_LOCK:
        _CHECKS[key] = got
        while len(_CHECKS) > _CHECKS_KEPT:
            _CHECKS.popitem(last=False)
    return got


def current_request() -> Request:
    """The game the form describes now (validated). ``errors`` maps a spec field to its
    message, which names the field."""
    ensure_form()
    source_id = str(state.get(state.SOURCE))
    labels = {**S.sources(), "upload": "Uploaded preset"}
    label = labels.get(source_id, source_id)
    toy = S.toy_name(source_id)
    if toy is not None:
        return Request(label, ToySource(toy), None, {}, None)
    if S.multi_name(source_id) is not None:  # three players: their own pages' path
        return Request(label, None, None, {}, None)
    base_pf = S.preflop_of_source(source_id, state.get(state.UPLOADED))
    if base_pf is not None:
        got = PF.check_form({f: state.get(k) for f, k in PF_WIDGET.items()}, base_pf.name)
        pf = got.spec
        pre = None if pf is None else PreflopSource(pf, got.setup)
        return Request(label, pre, None, got.errors, None, pf)
    values, errors = S.read_numbers({k: state.get(w) for k, w in WIDGET.items()})
    sizes = {S.size_key(*slot): state.get(S.size_key(*slot)) for slot in S.SIZE_SLOTS}
    base = S.spec_of_source(source_id, state.get(state.UPLOADED))
    spec = S.spec_from_form(values, base, sizes)
    checked = _check_cached(spec)
    for field, msg in checked.errors.items():
        errors.setdefault(field, f"{S.label(field)}: {msg}")
    source = None if errors else HoldemSource(spec, checked.setup)
    return Request(label, source, spec, errors, checked.estimate if not errors else None)
