"""Each hostile input the fuzzing of issue 16 found, answered with a message naming the field,
quickly and without allocating much first: huge sizes, trees that blow up, mistyped and
nested presets, crafted saved solves, API argument types, look-alike characters, preset
names that try to leave ``presets/``."""

from __future__ import annotations

import io
import json
import tomllib
import tracemalloc
import zipfile
from dataclasses import asdict, replace
from pathlib import Path

import numpy as np
import pytest

from solver import make_rule, solve
from solver.algorithms import make_solver
from solver.files.export import ExportError, load_solve, save_solve
from solver.files.presets import PRESET_DIR, PresetError, load_preset, parse_preset
from solver.games import UnknownGameError, make_game
from solver.games.holdem import HoldemSpec, SpecError, build_holdem, estimate, validate
from solver.games.spec import MAX_RAISE_CAP, MAX_STACK_BB
from solver.poker.cards import parse_board
from solver.poker.ranges import parse_range
from solver.run.jobs import SolveJob
from solver.tree.betting import MAX_BETTING_NODES

ROOT = Path(__file__).resolve().parent.parent
NINES = "9" * 400
RIVER = HoldemSpec(board="Td9d6hQc2s", pot=200, stack=900, oop_range="AA", ip_range="KK")


def _peak_mb(fn: object, *args: object) -> tuple[BaseException | None, float]:
    """(the exception ``fn(*args)`` raised, its peak Python allocation in MB)."""
    tracemalloc.start()
    try:
        fn(*args)  # type: ignore[operator]
        raised = None
    except Exception as exc:
        raised = exc
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return raised, peak


# ----- 1. huge size numbers ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"bets": f"{NINES}%"}, "bets"),
        ({"raises": f"{NINES}x"}, "raises"),
        ({"bets": f"{NINES}e"}, "bets"),
        ({"bets": f"{NINES}c"}, "bets"),
        ({"sizes": {"river": {"oop": {"bets": f"{NINES}%"}}}}, "sizes.river.oop.bets"),
        ({"pot": 1e308, "stack": 1e308}, "pot"),
        ({"stack": 10**400}, "stack"),
        ({"big_blind": float("inf")}, "big_blind"),
    ],
)
def test_huge_numbers_are_refused_naming_the_field(change: dict, field: str) -> None:
    with pytest.raises(SpecError) as info:
        validate(replace(RIVER, **change))
    assert info.value.field == field
    assert "large" in info.value.message or "finite" in info.value.message


# ----- 2. trees that blow up ---------------------------------------------------------------


def test_raise_cap_and_stack_in_big_blinds_are_capped() -> None:
    with pytest.raises(SpecError, match=f"at most {MAX_RAISE_CAP}") as info:
        validate(replace(RIVER, raise_cap=100))
    assert info.value.field == "raise_cap"
    with pytest.raises(SpecError, match=f"at most {MAX_STACK_BB:,}") as info:
        validate(replace(RIVER, stack=10**8, big_blind=1))
    assert info.value.field == "stack"


def test_a_betting_tree_past_its_limit_stops_while_being_built() -> None:
    sizes = "33%, 50%, 100%, a"
    spec = replace(RIVER, stack=10**7, big_blind=100, bets=sizes, raises=sizes, raise_cap=50)
    raised, peak = _peak_mb(estimate, validate(spec))
    assert isinstance(raised, SpecError) and raised.field == "tree"
    assert f"passes {MAX_BETTING_NODES:,} nodes" in raised.message
    assert peak < 256  # stopped at the limit, not after building the whole tree


def test_a_public_tree_past_the_memory_cap_is_refused_while_being_counted() -> None:
    spec = HoldemSpec(board="Td9d6h", pot=500, stack=9750, oop_range="22+,A2+",
                      ip_range="22+,A2+", bets="33%, 75%, 150%, a", raises="50%, 100%, a",
                      raise_cap=4)  # fmt: skip
    raised, peak = _peak_mb(estimate, validate(spec))  # 28.6 million nodes if counted out
    assert isinstance(raised, SpecError) and raised.field == "max_memory_mb"
    assert "passes 4,194,304 nodes" in raised.message and "4,096 MB" in raised.message
    assert peak < 256


def test_deep_raise_wars_never_reach_the_recursion_limit() -> None:
    spec = replace(RIVER, stack=10**6, big_blind=10, bets="100c", raises="2x",
                   raise_cap=MAX_RAISE_CAP)  # fmt: skip
    est = estimate(validate(spec))  # 50 raises deep: refused or counted, never RecursionError
    assert est.nodes > 0


# ----- 3. presets --------------------------------------------------------------------------

GOOD = (ROOT / "presets" / "srp-river.toml").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("extra", "fragment"),
    [
        ('[holdem.sizes]\nriver = "x"\n', "holdem.sizes.river: must be a table"),
        ("[holdem.sizes.flop]\noop = false\n", "holdem.sizes.flop.oop: must be a table"),
        ("[holdem.sizes.river.oop]\nbets = 5\n", "holdem.sizes.river.oop.bets: must be size"),
    ],
)
def test_mistyped_preset_sizes_name_the_field(extra: str, fragment: str) -> None:
    text = GOOD.split("[holdem.sizes")[0] + extra
    with pytest.raises(PresetError, match=fragment.replace(".", r"\.")):
        parse_preset(text, source="x.toml")


def test_mistyped_and_nested_presets_are_refused() -> None:
    with pytest.raises(PresetError, match=r"holdem\.donks: must be size text"):
        parse_preset(GOOD.replace("[holdem]\n", "[holdem]\ndonks = 5\n"), source="x.toml")
    with pytest.raises(PresetError, match=r"holdem\.pot: must be a number"):
        parse_preset(GOOD.replace("pot = 200", "pot = true"), source="x.toml")
    with pytest.raises(PresetError, match="nested too deeply"):
        parse_preset("x = " + "[" * 3000, source="x.toml")
    with pytest.raises(PresetError, match="not valid TOML"):
        parse_preset("x = " + "9" * 5000, source="x.toml")


def test_a_preset_name_never_reads_a_file_outside_presets(tmp_path: Path) -> None:
    outside = tmp_path / "spot.toml"
    outside.write_text(GOOD, encoding="utf-8")
    assert load_preset(outside).name == load_preset(str(outside)).name  # a path, as a path
    for name in ("..", "..%2fspot", "spot.", "a b", "\u212a"):
        with pytest.raises(PresetError, match="a name has letters"):
            load_preset(name)
    with pytest.raises(PresetError, match="not found"):
        load_preset("no-such-preset")
    with pytest.raises(PresetError, match="U\\+212A KELVIN SIGN"):
        load_preset("\u212auhn")
    assert load_preset("srp-river").key == "srp-river"
    assert (PRESET_DIR / "srp-river.toml").is_file()


def test_an_uploaded_preset_is_measured_before_it_is_decoded() -> None:
    """The upload path's bytes: refused by size before decoding (decoding 300 MB took 600 MB
    more), and bytes that are not UTF-8 are one message."""
    from solver.files.presets import parse_preset_bytes

    big = b"#" * 20_000_000
    tracemalloc.start()
    try:
        with pytest.raises(PresetError, match=r"big\.toml: larger than 1,000,000 bytes"):
            parse_preset_bytes(big, source="big.toml")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 2_000_000, peak
    with pytest.raises(PresetError, match=r"x\.toml: not a UTF-8 text file"):
        parse_preset_bytes(b"name = \xff", source="x.toml")
    assert parse_preset_bytes(GOOD.encode(), source="ok.toml").holdem is not None


def test_an_uploaded_preset_cannot_raise_the_memory_cap() -> None:
    text = GOOD.replace("[holdem]\n", "[holdem]\nmax_memory_mb = 20000\n")
    assert parse_preset(text).holdem.max_memory_mb == 20000  # type: ignore[union-attr]
    capped = parse_preset(text, max_memory_mb=4096.0).holdem
    assert capped is not None and capped.max_memory_mb == 4096.0
    lower = parse_preset(text.replace("20000", "64"), max_memory_mb=4096.0).holdem
    assert lower is not None and lower.max_memory_mb == 64


# ----- 4. saved solves ---------------------------------------------------------------------


def _leduc_save() -> bytes:
    e = make_solver(make_game("leduc"), "cfr+")
    e.iterate(3)
    return save_solve(e, {"kind": "toy", "name": "leduc"})


def _members(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return {n: z.read(n) for n in z.namelist()}


def _zip(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, payload in members.items():
            z.writestr(name, payload)
    return buf.getvalue()


def _with_meta(data: bytes, text: str) -> bytes:
    members = _members(data)
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.array(text))
    members["meta.npy"] = buf.getvalue()
    return _zip(members)


def _meta(data: bytes) -> dict:
    return json.loads(str(np.load(io.BytesIO(_members(data)["meta.npy"]))))


@pytest.mark.parametrize(
    ("key", "raw", "fragment"),
    [
        ("rbp", "[1]", "rbp must be an object"),
        ("algorithm", "[]", "unknown algorithm"),
        ("iteration", "Infinity", "iteration must be a whole number"),
        ("iteration", "-5", "iteration must be a whole number ≥ 0, got -5"),
        ("schedule_start", "-1", "schedule_start must be a whole number ≥ 0, got -1"),
        ("schedule_start", "1.5", "schedule_start must be a whole number"),
        ("seed", "Infinity", "seed must be a whole number"),
        ("history", '[[1, "a", 2]]', "bad history row"),
        ("locks", "[1]", "locks must be an object"),
        ("locks", '{"nope": {"k": 1}}', "bad locks .*'nope': no such line"),
        ("locks", '{"root": {"k": ' + "9" * 400 + "}}", "bad locks .*not a probability"),
        ("iteration", "9" * 5000, "not JSON"),
        ("params", "[" * 100_000 + "]" * 100_000, "not JSON|nested too deeply"),
    ],
)
def test_bad_metadata_is_refused_naming_it(key: str, raw: str, fragment: str) -> None:
    data = _leduc_save()
    meta = _meta(data)
    meta[key] = "__RAW__"
    text = json.dumps(meta).replace('"__RAW__"', raw)
    with pytest.raises(ExportError, match=fragment):
        load_solve(_with_meta(data, text))


def test_flipped_bytes_are_refused_never_raised() -> None:
    data = _leduc_save()
    rng = np.random.default_rng(16)
    refused = 0
    for _ in range(60):
        b = bytearray(data)
        for at in rng.integers(0, len(b), size=2):
            b[at] ^= 1 << int(rng.integers(0, 8))
        try:
            load_solve(bytes(b))
        except ExportError:
            refused += 1
    assert refused > 30  # most flips break something; none raised anything else


def test_a_zip_bomb_is_refused_from_its_header() -> None:
    members = _members(_leduc_save())
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.zeros(2**28 // 8))  # 256 MiB of zeros
    members["storage_regrets.npy"] = buf.getvalue()
    bomb = _zip(members)
    assert len(bomb) < 2_000_000
    raised, peak = _peak_mb(load_solve, bomb)
    assert isinstance(raised, ExportError) and "has shape (33554432,)" in str(raised)
    assert peak < 64  # the header said no before any of it was inflated


def test_a_loaded_file_never_raises_the_memory_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = HoldemSpec(board="Td9d6hQc2s", pot=100, stack=200, oop_range="AA,KK",
                      ip_range="QQ,AK", bets="a", raises="a")  # fmt: skip
    e = make_solver(build_holdem(spec), "dcfr")
    e.iterate(2)
    saved = asdict(spec)
    saved["max_memory_mb"] = 1e12
    loaded = load_solve(save_solve(e, {"kind": "holdem", "spec": saved}))
    assert loaded.holdem is not None and loaded.holdem.max_memory_mb == 4096.0
    # a file naming a flop tree far bigger than its arrays: refused before the game is built
    big = asdict(
        HoldemSpec(
            board="Td9d6h",
            pot=500,
            stack=9750,
            oop_range="22+,A2+",
            ip_range="22+,A2+",
            bets="33%, a",
            raises="a",
            max_memory_mb=1e12,
        )
    )
    monkeypatch.setattr("solver.files.export.build_holdem", lambda spec: pytest.fail("built"))
    with pytest.raises(ExportError, match="saved from another game"):
        load_solve(save_solve(e, {"kind": "holdem", "spec": big}))


def test_a_zip_directory_longer_than_its_count_is_refused_before_zipfile_reads_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An end record claiming one member over a central directory of thousands: zipfile
    would build an object per entry (a 1,000,000-entry directory took +600 MB)."""
    import struct

    from solver.files import safe_npz

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        for i in range(6_000):
            z.writestr(f"a{i:05d}.npy", b"")
    data = bytearray(buf.getvalue())
    at = bytes(data).rfind(b"PK\x05\x06")
    data[at + 8 : at + 12] = struct.pack("<HH", 1, 1)  # entries on this disk, in all: 1
    monkeypatch.setattr(safe_npz.zipfile, "ZipFile", None)  # reached: a TypeError below
    with pytest.raises(ExportError, match=r"the zip's directory takes [0-9,]+ bytes"):
        load_solve(bytes(data))


@pytest.mark.parametrize("algorithm", ["cfr+", "mccfr-cs", "mccfr-es", "mccfr-os", "dmccfr"])
def test_the_storage_checked_before_building_is_the_engines_own(algorithm: str) -> None:
    """The arrays required before the game is built are those of the engine that loads the
    file (chance-sampled CFR keeps the full-width storage; the other samplers their own)."""
    e = make_solver(make_game("leduc"), algorithm)
    e.iterate(2)
    loaded = load_solve(save_solve(e, {"kind": "toy", "name": "leduc"}))
    assert loaded.engine.iteration == 2


def _header_only(shape: tuple[int, ...]) -> bytes:
    """A .npy member whose header declares ``shape`` float64 and which holds no data."""
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        buf, {"descr": "<f8", "fortran_order": False, "shape": shape}
    )
    return buf.getvalue()


@pytest.mark.parametrize("how", ["declared", "missing"])
def test_a_small_save_naming_a_big_game_is_refused_before_the_game_is_built(
    how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A kilobyte file naming the srp-flop spot (1.29 M nodes), its strategy sums' header
    matching the game's count: refused from the headers — data its members cannot hold, or
    a storage array missing — before the game is built (10 s and +600 MB before)."""
    from solver.files import export

    spec = load_preset("srp-flop").holdem
    assert spec is not None
    cells = estimate(validate(spec)).storage_entries
    members = _members(_leduc_save())
    meta = json.loads(str(np.load(io.BytesIO(members["meta.npy"]))))
    meta["game"] = {"kind": "holdem", "spec": asdict(spec)}
    for name in [n for n in members if n.startswith("storage_")]:
        members[name] = _header_only((cells,))
    if how == "missing":
        del members["storage_regrets.npy"]
    mbuf = io.BytesIO()
    np.lib.format.write_array(mbuf, np.array(json.dumps(meta)))
    members["meta.npy"] = mbuf.getvalue()
    data = _zip(members)
    assert len(data) < 20_000

    def built(*args: object) -> None:
        raise AssertionError("the game was built")

    monkeypatch.setattr(export, "build_holdem", built)
    words = "declares [0-9,]+ bytes of data" if how == "declared" else "missing array 'regrets'"
    with pytest.raises(ExportError, match=words):
        load_solve(data)


# ----- 5, 9. API argument types ------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "kind", "name"),
    [
        ({"iterations": 1.5}, TypeError, "iterations"),
        ({"iterations": True}, TypeError, "iterations"),
        ({"check_every": 0}, ValueError, "check_every"),
        ({"check_every": "2"}, TypeError, "check_every"),
        ({"target_exploitability": "1"}, TypeError, "target_exploitability"),
        ({"target_exploitability": float("nan")}, ValueError, "target_exploitability"),
        ({"callback": 5}, TypeError, "callback"),
        ({"params": "alpha=1"}, TypeError, "params"),
        ({"pruning": 3}, ValueError, "pruning"),
        ({"threads": "2"}, ValueError, "threads"),
        ({"threads": 10**400}, ValueError, "threads"),
        ({"rbp_check_every": 10**400, "pruning": "total"}, ValueError, "check every"),
    ],
)
def test_api_arguments_of_the_wrong_type_name_the_argument(
    kwargs: dict, kind: type[Exception], name: str
) -> None:
    with pytest.raises(kind, match=name):
        solve("kuhn", "cfr", **{"iterations": 2, **kwargs})


def test_game_names_and_solve_job_watch() -> None:
    with pytest.raises(UnknownGameError, match="unknown game 'chess'") as info:
        solve("chess", "cfr", iterations=1)
    assert isinstance(info.value, KeyError) and isinstance(info.value, ValueError)
    with pytest.raises(TypeError, match="game must be a Game"):
        solve(5, "cfr", iterations=1)  # type: ignore[call-overload]
    game = make_game("kuhn")
    rule = make_rule("cfr")
    with pytest.raises(TypeError, match="watch must be a node index"):
        SolveJob(game, rule, watch=1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="watch: node 999"):
        SolveJob(game, rule, watch=999)


# ----- 6. threads ---------------------------------------------------------------------------


def test_threads_are_bounded_by_the_cores_and_solves_share_one_pool() -> None:
    import threading

    from solver.cfr.parallel import max_threads

    with pytest.raises(ValueError, match="threads") as info:
        solve("leduc", "cfr", iterations=1, threads=max_threads() + 1)
    assert "this machine's" in str(info.value)
    before = {t for t in threading.enumerate() if t.name.startswith("regret-lab-solver")}
    for _ in range(6):  # each solve used to start its own pool and leave it idle
        solve("leduc", "cfr", iterations=2, threads=max_threads())
    after = {t for t in threading.enumerate() if t.name.startswith("regret-lab-solver")}
    assert len(after) <= max_threads() and len(after - before) <= max_threads()


# ----- 8. look-alike characters ------------------------------------------------------------


def test_a_kelvin_sign_is_named() -> None:
    for text in ("\u212aK", "A\u212as", "AA, \u212aQs+"):
        with pytest.raises(ValueError, match="U\\+212A KELVIN SIGN"):
            parse_range(text)
    with pytest.raises(ValueError, match="U\\+212A KELVIN SIGN"):
        parse_board("\u212as9d6h")


# ----- 10. the browser shows messages, not stacks ------------------------------------------


def test_error_details_show_the_type_not_the_stack() -> None:
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["client"]["showErrorDetails"] == "type"
    from app.errors import ROOT as APP_ROOT
    from app.errors import shown

    text = shown(FileNotFoundError(f"no file {APP_ROOT / 'presets' / 'x.toml'}"))
    assert text.startswith("FileNotFoundError: no file …") and str(APP_ROOT) not in text


def test_a_fragments_error_is_shown_as_itself_not_streamlits_wrapper() -> None:
    from streamlit.errors import FragmentHandledException

    from app.errors import shown

    assert shown(FragmentHandledException(ValueError("bad pot"))) == "ValueError: bad pot"
    assert shown(FragmentHandledException("no cause")).startswith("FragmentHandledException")


def test_loopback_addresses_and_the_rest() -> None:
    from app.files import is_loopback

    for address in ("127.0.0.1", "127.0.0.2", "::1", "[::1]", "localhost"):
        assert is_loopback(address), address
    assert not is_loopback(None)  # Streamlit's default: every interface
    for other in ("0.0.0.0", "::", "", "192.168.1.7", "10.0.0.5", "example.org"):
        assert not is_loopback(other), other


@pytest.mark.parametrize(("address", "warned"), [("127.0.0.1", False), ("0.0.0.0", True)])
def test_the_sidebar_warns_when_the_server_answers_other_machines(
    address: str, warned: bool
) -> None:
    import streamlit as st
    from app_helpers import app

    old = st.get_option("server.address")
    st.config.set_option("server.address", address)
    try:
        at = app()
        at.run()
    finally:
        st.config.set_option("server.address", old)
    assert not at.exception
    texts = [w.value for w in at.sidebar.warning]
    assert any("answers other machines" in t for t in texts) == warned, texts


def test_the_bets_field_refuses_a_huge_size_and_keeps_the_text() -> None:
    from app_helpers import page

    from app import state

    at = page("setup")
    at.run()
    at.text_input(key=state.BETS).set_value(f"{NINES}%").run()
    assert not at.exception
    assert any(e.value.lower().startswith("bets") and "too large" in e.value for e in at.error)
    assert at.text_input(key=state.BETS).value == f"{NINES}%"  # nothing lost
    at.run()  # and it stays a message on every rerun
    assert not at.exception and at.error
    at.text_input(key=state.BETS).set_value("50%, a").run()
    assert not at.error and at.metric


def test_a_failed_load_leaves_the_current_solve_alone() -> None:
    from streamlit.testing.v1 import AppTest

    from app import state

    def script() -> None:
        from app import state
        from app.screens import export

        class Upload:
            name = "crafted.npz"

            def getvalue(self) -> bytes:
                return b"PK\x05\x06" + b"\xff" * 18  # an end record listing 65,535 members

        state.put(state.LOAD_FILE, Upload())
        export._on_upload()

    job = SolveJob(make_game("kuhn"), make_rule("cfr"))  # the session's solve (not started)
    at = AppTest.from_function(script, default_timeout=60)
    at.session_state[state.JOB] = job
    at.run()
    assert not at.exception
    assert at.session_state[state.JOB] is job  # untouched
    assert "crafted.npz: the file lists 65,535 members" in at.session_state[state.LOAD_ERROR]


# ----- batch spec files --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("edit", "field"),
    [
        ({"threads": "2"}, "threads"),
        ({"max_iterations": 1.5}, "max_iterations"),
        ({"target_pct": 10**400}, "target_pct"),
        ({"save_solves": "yes"}, "save_solves"),
        ({"flops": 25}, "flops"),
        ({"filters": {"suits": "monotone"}}, "filters"),
        ({"filters": {"colour": ["red"]}}, "filter"),
    ],
)
def test_a_batch_spec_file_names_its_bad_field(edit: dict, field: str) -> None:
    from solver.batch.spec import BatchError, BatchSpec

    data = json.loads(BatchSpec(template=RIVER, flops="25").to_json())
    data.update(edit)
    with pytest.raises(BatchError) as info:
        BatchSpec.from_json(json.dumps(data))
    assert info.value.field == field
    data = json.loads(BatchSpec(template=RIVER, flops="25").to_json())
    data["template"]["stakc"] = 900
    with pytest.raises(BatchError, match=r"template: unknown field.*stakc"):
        BatchSpec.from_json(json.dumps(data))
    with pytest.raises(BatchError, match="spec: not JSON"):
        BatchSpec.from_json('{"iteration": ' + "9" * 5000 + "}")


# ----- node locks (the API's locks= and warm_start=, the CLI's --locks file) ----------------


@pytest.mark.parametrize(
    ("kwargs", "kind", "fragment"),
    [
        ({"locks": {"root": {"k": 10**400}}}, ValueError, "lock 'root': k: .* not a probability"),
        ({"locks": {5: {"k": 1.0}}}, ValueError, "a line is action and card labels"),
        ({"locks": {"root": {5: {"k": 1.0}}}}, ValueError, "a hand is text"),
        ({"locks": np.ones(3)}, TypeError, "locks must be"),
        ({"locks": "k"}, TypeError, "locks must be"),
        ({"warm_start": 5, "locks": {"root": {"k": 1.0}}}, TypeError, "warm_start must be"),
    ],
)
def test_bad_locks_in_the_api_name_the_argument(
    kwargs: dict, kind: type[Exception], fragment: str
) -> None:
    with pytest.raises(kind, match=fragment):
        solve("kuhn", "cfr", iterations=2, **kwargs)


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        (b"\xff\xfe{}", "is not UTF-8 text"),
        (b'{"root": ' + b"9" * 5000 + b"}", "is not JSON"),
        (b"{" * 100_000, "is not JSON"),
        (b" " * 1_000_001, "is larger than 1,000,000 bytes"),
        (b'{"root": {"k": 1e999}}', "inf is not a probability"),
        (b"[]", 'must hold {"LINE": MIX'),
    ],
)
def test_a_bad_locks_file_is_one_line_naming_the_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], data: bytes, fragment: str
) -> None:
    from solver.cli import main

    path = tmp_path / "locks.json"
    path.write_bytes(data)
    assert main(["solve", "--game", "kuhn", "--iterations", "2", "--locks", str(path)]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: --locks: "), lines
    assert fragment in lines[0]
