"""AppTest: the Locks expander of the three-player Solve page (issue 49 item 1;
docs/locking.md, docs/multiway.md). Lock text pasted (or uploaded) is shown resolved in
words and played by the next solve; a bad one is shown naming its line, the locks before
kept."""

from __future__ import annotations

import json
from collections.abc import Iterator

import numpy as np
import pytest
from app_helpers import no_threads_left, page
from multiway_helpers import texts
from streamlit.testing.v1 import AppTest

from app import state
from app.features import multi_locks as ML
from solver.games.multi_locks import build_multi_locks, uniform_locks
from solver.games.multiway import multi_game
from solver.games.nashconv import best_response_values, uniform_profile
from solver.run.multi_job import MultiSolveJob

KUHN3 = "multi:kuhn3"


@pytest.fixture(autouse=True)
def _teardown() -> Iterator[None]:
    yield
    no_threads_left()


def test_pasted_locks_are_shown_resolved_and_played_by_the_next_solve() -> None:
    """Players 1 and 2 (the API's 0 and 1) locked to uniform by lines, and a per-hand lock
    shown in words; the solve started next plays them: player 3 earns its best-response
    value against uniform (nashconv) within 1e-4, the locked cells exactly uniform."""
    g = multi_game("kuhn3")
    spec = uniform_locks(g, [0, 1])
    at = page("solve", **{state.SOURCE: KUHN3, state.MULTI_ALGO: "cfr+"})
    at.run()
    assert "No locks" in texts(at)
    at.text_area(key=ML.TEXT).set_value(json.dumps(spec)).run()
    at.button(key=ML.K + "apply").click().run()
    assert not at.exception and not at.error
    held = at.session_state[ML.APPLIED]
    assert held[0] == "kuhn3" and held[1].spec == spec
    shown = texts(at)
    assert "Applied to the next solve" in shown
    assert "player 1 at 'root': J: check 50 %, bet 50 %; Q: check 50 %, bet 50 %" in shown
    assert "player 2 at 'k': " in shown and "player 3 at" not in shown
    at.button(key="multi_start").click().run()
    job = at.session_state[state.MULTI_JOB]
    assert isinstance(job, MultiSolveJob) and job.locks is not None
    assert np.array_equal(job.locks.cells, build_multi_locks(g, spec).cells)
    job.wait_for(lambda q: q.finished, timeout=60)
    at.run()
    assert not at.exception
    assert "Solved with locks: 32 information sets of player 1, player 2." in texts(at)
    sigma, _ = job.average_profile()
    u = uniform_profile(g)
    cells = job.locks.cells
    np.testing.assert_array_equal(sigma[cells], u[cells])
    last = job.progress.last
    assert last is not None
    assert last.ev[2] == pytest.approx(best_response_values(g, u)[2], abs=1e-4)


def test_a_bad_lock_is_named_and_the_locks_before_stay() -> None:
    at = page("solve", **{state.SOURCE: KUHN3})
    at.run()
    at.text_area(key=ML.TEXT).set_value('{"k b": {"K": {"c": 1}}}').run()
    at.button(key=ML.K + "apply").click().run()
    assert "player 3 at 'k b': K: call 100 %" in texts(at)
    before = at.session_state[ML.APPLIED]
    for bad, says in [
        ('{"k x": {"k": 1}}', "lock 'k x': no such line in kuhn3: after 'k' come k, b, not 'x'"),
        ('{"k b": {"K": {"c": 0.7}}}', "lock 'k b', hand 'K': probabilities sum to 0.7"),
        ('{"k b": {"c": 1', "not JSON"),
        ('["k b"]', 'the locks are one JSON object, {"LINE": MIX, ...}'),
    ]:
        at.text_area(key=ML.TEXT).set_value(bad).run()
        at.button(key=ML.K + "apply").click().run()
        assert not at.exception
        assert len(at.error) == 1 and says in at.error[0].value
        assert at.error[0].value.startswith("Not applied (the locks before stay): ")
        assert at.session_state[ML.APPLIED] is before
        assert "player 3 at 'k b': K: call 100 %" in texts(at)
    at.button(key=ML.K + "clear").click().run()
    assert at.session_state[ML.APPLIED] is None and "No locks" in texts(at)


def test_an_uploaded_file_is_applied_and_a_huge_one_refused() -> None:
    """Through the uploader's callback (AppTest cannot feed a file uploader)."""

    def script(content: bytes) -> None:
        from app import state as S
        from app.features import multi_locks as M
        from solver.games.multiway import multi_game as mg

        class Upload:
            name = "locks.json"

            def getvalue(self) -> bytes:
                return content

        S.put(M.UPLOAD, Upload())
        M._upload("leduc3", mg("leduc3"), None)

    good = AppTest.from_function(script, default_timeout=60,
                                 kwargs={"content": b'{"c r": {"K": {"c": 1}}}'})  # fmt: skip
    good.run()
    assert not good.exception and good.session_state[ML.ERROR] is None
    name, locks = good.session_state[ML.APPLIED]
    assert name == "leduc3" and ML.described(locks) == [
        "player 3 at 'c r': Ks: call 100 %; Kh: call 100 %"
    ]
    huge = AppTest.from_function(script, default_timeout=60,
                                 kwargs={"content": b" " * (ML.MAX_FILE_BYTES + 1)})  # fmt: skip
    huge.run()
    assert "over 1,000,000 bytes" in huge.session_state[ML.ERROR]
    assert ML.APPLIED not in huge.session_state
    at = page("solve", **{state.SOURCE: KUHN3})
    at.run()
    uploader = next(u for u in at.get("file_uploader") if u.proto.label == "or load a locks file")
    assert uploader.proto.max_upload_size_mb == ML.UPLOAD_MB == 1


def test_locks_of_another_game_are_not_played() -> None:
    """Locks applied on kuhn3 stay with kuhn3: Set up on leduc3 shows none and solves free."""
    g = multi_game("kuhn3")
    held = ("kuhn3", build_multi_locks(g, {"k": {"k": 1}}))
    preset = {state.SOURCE: "multi:leduc3", state.MULTI_ITERATIONS: 2, ML.APPLIED: held}
    at = page("solve", **preset)
    at.run()
    assert "No locks" in texts(at)
    at.button(key="multi_start").click().run()
    job = at.session_state[state.MULTI_JOB]
    assert job.locks is None
    job.wait_for(lambda q: q.finished, timeout=60)
