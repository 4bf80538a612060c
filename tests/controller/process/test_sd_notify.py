"""sd_notify over a fake NOTIFY_SOCKET: what systemd would receive."""

from __future__ import annotations

import asyncio
import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.process import sd_notify

pytestmark = pytest.mark.timeout(30)


@pytest.fixture
def systemd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[socket.socket]:
    """A datagram socket standing in for systemd's notify socket."""
    path = tmp_path / "notify"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(str(path))
        sock.settimeout(10)  # a hang guard
        monkeypatch.setenv("NOTIFY_SOCKET", str(path))
        yield sock


def test_ready_watchdog_stopping(systemd: socket.socket) -> None:
    assert sd_notify.ready("42 hands")
    assert systemd.recv(4096) == b"READY=1\nSTATUS=42 hands"
    assert sd_notify.watchdog()
    assert systemd.recv(4096) == b"WATCHDOG=1"
    assert sd_notify.stopping()
    assert systemd.recv(4096) == b"STOPPING=1"


def test_abstract_socket(monkeypatch: pytest.MonkeyPatch) -> None:
    name = f"mjtable-test-{os.getpid()}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind("\0" + name)
        sock.settimeout(10)
        monkeypatch.setenv("NOTIFY_SOCKET", "@" + name)
        assert sd_notify.notify("READY=1")
        assert sock.recv(4096) == b"READY=1"


def test_outside_systemd_nothing_happens(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    assert not sd_notify.ready()
    assert not sd_notify.watchdog()


def test_watchdog_interval() -> None:
    pid = str(os.getpid())
    assert sd_notify.watchdog_interval({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": pid}) == 15
    assert sd_notify.watchdog_interval({"WATCHDOG_USEC": "30000000"}) == 15
    assert sd_notify.watchdog_interval({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "1"}) is None
    assert sd_notify.watchdog_interval({}) is None
    assert sd_notify.watchdog_interval({"WATCHDOG_USEC": "0"}) is None


def test_watchdog_loop_pings_while_healthy(
    systemd: socket.socket, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WATCHDOG_USEC", "20000")  # pings every 10 ms
    monkeypatch.setenv("WATCHDOG_PID", str(os.getpid()))
    health = iter([True, False, True])

    async def main() -> None:
        task = asyncio.create_task(sd_notify.watchdog_loop(lambda: next(health, True)))
        # Two pings arrive although three checks ran: the unhealthy one sent nothing.
        assert await asyncio.to_thread(systemd.recv, 4096) == b"WATCHDOG=1"
        assert await asyncio.to_thread(systemd.recv, 4096) == b"WATCHDOG=1"
        task.cancel()

    asyncio.run(main())


def test_no_watchdog_loop_without_watchdog(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WATCHDOG_USEC", raising=False)
    asyncio.run(sd_notify.watchdog_loop())  # returns at once
