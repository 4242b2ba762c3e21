"""Browser-test fixtures: Debian's chromium for pytest-playwright, and the app served on a
free port for the module's tests."""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest

from app.serve import CHROMIUM_ARGS, running_app


@pytest.fixture(scope="session")
def browser_type_launch_args() -> dict:
    return {"executable_path": shutil.which("chromium"), "headless": True, "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def browser_context_args() -> dict:
    return {"viewport": {"width": 1400, "height": 1000}, "accept_downloads": True}


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with running_app() as url:
        yield url
