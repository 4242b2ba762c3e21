"""Start and stop the app as a local server: for the browser tests and the benchmarks.

``running_server()`` launches ``streamlit run app/main.py`` on a free loopback port (headless,
no file watcher, no usage stats), waits until ``GET /_stcore/health`` answers ``ok`` and
yields a :class:`Server` (base URL and process id, for memory readings); on exit it stops the
server's whole process group. ``running_app()`` yields the URL only.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Chromium flags for this machine's closed network (PLATFORM.md): no background connections.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass(frozen=True)
class Server:
    url: str  # http://127.0.0.1:<port>
    pid: int  # the streamlit process

    def rss_mb(self) -> float:
        """The server process's resident memory (MiB), from ``/proc``."""
        return rss_mb(self.pid)


def rss_mb(pid: int) -> float:
    """Resident memory of process ``pid`` in MiB (``VmRSS`` of ``/proc/<pid>/status``)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    raise RuntimeError(f"no VmRSS for process {pid}")


@contextmanager
def running_app(start_timeout: float = 120.0, **env: str) -> Iterator[str]:
    """The app served on ``http://127.0.0.1:<free port>`` for the duration of the block."""
    with running_server(start_timeout, **env) as server:
        yield server.url


@contextmanager
def running_server(
    start_timeout: float = 120.0,
    address: str | None = "127.0.0.1",
    cwd: Path | str = ROOT,
    **extra_env: str,
) -> Iterator[Server]:
    """The app served on a free port for the duration of the block, reached on loopback;
    ``extra_env`` adds environment variables (e.g. ``REGRET_LAB_GRACE_S``). ``address``:
    the ``--server.address`` passed (None: none, the app's own config decides); ``cwd``:
    the folder it is started from. No background warm-up: the test command and the
    benchmarks warm Numba's cache before they start servers."""
    port = free_port()
    env = {
        **os.environ,
        "NUMBA_THREADING_LAYER": "threadsafe",
        "REGRET_LAB_BACKGROUND_WARMUP": "0",
        **extra_env,
    }
    cmd = [
        sys.executable, "-m", "streamlit", "run", str(ROOT / "app" / "main.py"),
        "--server.headless", "true", "--server.port", str(port),
        "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none",
    ]  # fmt: skip
    if address is not None:
        cmd += ["--server.address", address]
    proc = subprocess.Popen(
        cmd,
        cwd=cwd,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + start_timeout
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=1) as r:
                    if r.read() == b"ok":
                        break
            except OSError:
                pass
            if time.monotonic() > deadline or proc.poll() is not None:
                raise RuntimeError("streamlit did not start")
            time.sleep(0.1)
        yield Server(url, proc.pid)
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(5)
