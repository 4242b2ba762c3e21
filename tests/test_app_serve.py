"""Where the app's server listens (issue 45): on loopback by default wherever it is started
from — ``streamlit run /path/to/app/main.py`` from another folder reads the app's own
``app/.streamlit/config.toml`` — and on the address the command line gives when it gives
one (the sidebar's warning for that case: tests/test_hostile_input.py). Read from the
kernel's socket table (``/proc/net/tcp``, ``tcp6``) while a real server runs."""

from __future__ import annotations

import ipaddress
import sys
import tomllib
from pathlib import Path

import pytest

from app.serve import ROOT, running_server

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="reads the socket table from /proc"
)


def listening(port: int) -> set[str]:
    """The local addresses of the sockets listening on TCP ``port``."""
    out = set()
    for name in ("tcp", "tcp6"):
        path = Path("/proc/net") / name
        if not path.exists():
            continue
        for line in path.read_text().splitlines()[1:]:
            fields = line.split()
            local, state = fields[1], fields[3]
            host, _, hex_port = local.partition(":")
            if state != "0A" or int(hex_port, 16) != port:  # 0A: LISTEN
                continue
            raw = bytes.fromhex(host)
            # /proc writes each 32-bit word in the host's byte order
            words = [raw[i : i + 4][::-1] if sys.byteorder == "little" else raw[i : i + 4]
                     for i in range(0, len(raw), 4)]  # fmt: skip
            out.add(str(ipaddress.ip_address(b"".join(words))))
    return out


def _port(url: str) -> int:
    return int(url.rsplit(":", 1)[1])


def test_the_two_configs_are_the_same() -> None:
    """The root's config (read when started from the repository) and the app's (read
    wherever it is started from) say the same."""
    root = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    app = tomllib.loads((ROOT / "app" / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert root == app
    assert app["server"]["address"] == "127.0.0.1"


def test_started_from_another_folder_it_listens_on_loopback_only(tmp_path: Path) -> None:
    with running_server(address=None, cwd=tmp_path) as server:
        bound = listening(_port(server.url))
    assert bound, "no listening socket found"
    assert all(ipaddress.ip_address(a).is_loopback for a in bound), bound


def test_an_explicit_address_still_wins(tmp_path: Path) -> None:
    """``--server.address 0.0.0.0`` (scripts/app.sh with REGRET_LAB_ADDRESS): every
    interface, as asked — the app's config does not override the command line."""
    with running_server(address="0.0.0.0", cwd=tmp_path) as server:
        bound = listening(_port(server.url))
    assert "0.0.0.0" in bound, bound
