"""Fixtures of the browser tests: Debian's chromium through pytest-playwright (never a
downloaded browser), a real server, and patient pages."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.files import BATCHES_ENV
from app.runtime import SWEEP_LOG_ENV
from app.serve import CHROMIUM_ARGS, Server, running_app, running_server

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the helpers module ``pw``
pytest.importorskip("playwright")

from playwright.sync_api import Page
from pw import GRACE_S, WAIT

if shutil.which("chromium") is None:
    collect_ignore_glob = ["test_*.py"]  # nothing to drive: scripts/test.sh installs it


@pytest.fixture(scope="session")
def browser_type_launch_args() -> dict:
    return {"executable_path": shutil.which("chromium"), "headless": True, "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def browser_context_args() -> dict:
    return {"viewport": {"width": 1400, "height": 1000}, "accept_downloads": True}


@pytest.fixture(scope="session")
def batches(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shared server's batch folder (``REGRET_LAB_BATCHES``): the Reports modules put
    their databases here, each under its own names (the page opens only a typed name)."""
    return tmp_path_factory.mktemp("batches")


@pytest.fixture(scope="session")
def server(batches: Path) -> Iterator[str]:
    """The app's URL: one server per test process, shared by the modules that use it (each
    start loads the app's modules and kernels again: seconds of a busy machine's time), with
    the batch folder :func:`batches`. Modules that need a server of their own define their
    own fixture."""
    with running_app(120.0, **{BATCHES_ENV: str(batches)}) as url:
        yield url


@pytest.fixture
def page(page: Page) -> Page:
    """pytest-playwright's page, waiting as long as a busy 2-core machine needs."""
    page.set_default_timeout(WAIT)
    return page


@pytest.fixture(scope="module")
def sweep_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The :func:`short_grace` server's sweep log: a line per session its sweeper closed."""
    return tmp_path_factory.mktemp("sweep") / "sweep.log"


@pytest.fixture(scope="module")
def short_grace(sweep_log: Path) -> Iterator[Server]:
    """A server of the module's own whose closed tabs' sessions end :data:`pw.GRACE_S` after
    they are gone (not the default's minutes), writing each close to ``sweep_log``."""
    env = {"REGRET_LAB_GRACE_S": str(GRACE_S), SWEEP_LOG_ENV: str(sweep_log)}
    with running_server(120.0, **env) as s:
        yield s
