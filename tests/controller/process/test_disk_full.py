"""A full disk on a small real tmpfs under the data directory: the table holds play with an
alert that says so (never dies, never loses what it stored), and resumes once space returns.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import socket
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy.exc
from structlog.testing import capture_logs

from controller.process.disk_space import free_bytes
from controller.runtime import running
from controller.store import EventStore
from tests.controller.mosquitto import Mosquitto
from tests.controller.service_helpers import (
    GUARD,
    config_for,
    finished_hands,
    options,
    recording,
    refold,
    until,
)

SIZE = 24 << 20


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    if os.geteuid() != 0:
        pytest.fail("mounting a tmpfs needs root: run the suite as root, as CI does")
    mount = tmp_path / "disk"
    mount.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={SIZE}", "tmpfs", str(mount)], check=True)
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(disk: Path, leave: int = 0) -> Path:
    """A file taking all but ``leave`` bytes of the tmpfs (all of it with 0)."""
    filler = disk / "filler"
    chunk = b"\0" * (64 << 10)
    with filler.open("ab") as f:
        while free_bytes(disk) > leave:
            try:
                f.write(chunk[: max(4096, min(len(chunk), free_bytes(disk) - leave))])
                f.flush()
            except OSError as err:
                assert err.errno == errno.ENOSPC
                break
    return filler


def finished(store: EventStore) -> int:
    return len(store.list_hands(status="finished", limit=10_000))


def _notified(sock: socket.socket) -> list[str]:
    """The lines sent to the notify socket so far."""
    lines = []
    with contextlib.suppress(BlockingIOError):
        while True:
            lines += sock.recv(4096).decode().splitlines()
    return lines


def disk_alerts(messages: list[object]) -> list[object]:
    return [a for a in messages if isinstance(a, dict) and a.get("kind") == "disk_full"]


@pytest.mark.timeout(300)
def test_no_hand_starts_under_the_free_space_floor_and_play_resumes_when_space_returns(
    mosquitto: Mosquitto, small_disk: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = small_disk / "data"
    systemd = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)  # what systemd listens on
    systemd.bind(str(tmp_path / "notify"))
    systemd.setblocking(False)
    monkeypatch.setenv("NOTIFY_SOCKET", str(tmp_path / "notify"))
    config = config_for(data, "xingguo", mosquitto.url, store={"min_free_mb": 4})

    async def main() -> None:
        async with recording(mosquitto.port) as rec, running(config, options(5, None)) as run:
            stop = asyncio.Event()
            task = asyncio.create_task(run.service.run(stop))
            await until(lambda: finished(run.store) >= 1, "a first hand")
            filler = fill(small_disk, leave=2 << 20)
            await until(lambda: run.service.held_for_disk, "play held for the disk")
            await until(lambda: disk_alerts(rec.of("alerts")), "the disk_full alert on MQTT")
            alert = disk_alerts(rec.of("alerts"))[0]
            assert isinstance(alert, dict)
            assert alert["title"]["en"] == "Disk full" and "bytes" not in alert["message"]
            assert "STATUS=disk full: play held until space is freed" in _notified(systemd)
            held = finished(run.store)
            await asyncio.sleep(2.0)  # many ticks: no hand starts while under the floor
            # (a hand opened at the build, its dice committed, may wait: not on its walls)
            assert not run.keeper.playing and finished(run.store) == held
            filler.unlink()
            await until(lambda: finished(run.store) >= held + 2, "play resumed", GUARD * 2)
            assert not run.service.held_for_disk and not task.done()
            assert "STATUS=serving" in _notified(systemd)
            stop.set()
            await asyncio.wait_for(task, GUARD)
            hands = finished_hands(run.store)
        assert [h.hand.hand_no for h in hands] == list(range(1, len(hands) + 1))
        for stored in hands:
            refold(stored)

    asyncio.run(main())


@pytest.mark.timeout(300)
def test_a_write_refused_for_a_full_disk_holds_the_table_instead_of_ending_it(
    mosquitto: Mosquitto, small_disk: Path
) -> None:
    data = small_disk / "data"
    config = config_for(data, "xingguo", mosquitto.url, store={"min_free_mb": 0})

    async def main() -> None:
        async with recording(mosquitto.port) as rec, running(config, options(6, None)) as run:
            stop = asyncio.Event()
            task = asyncio.create_task(run.service.run(stop))
            await until(lambda: finished(run.store) >= 1 and run.keeper.playing, "hand 2")
            before = {h.hand.id: h.events for h in finished_hands(run.store)}
            filler = fill(small_disk)  # every byte: the next write is refused
            # (held until space returns; a rolled-back write may free a little at once)
            await until(lambda: disk_alerts(rec.of("alerts")) or task.done(), "a refused write")
            assert not task.done(), task.exception()
            await asyncio.sleep(1.0)
            assert not task.done(), "the service must hold, not end"
            filler.unlink()
            held = finished(run.store)
            await until(lambda: finished(run.store) >= held + 1, "play resumed", GUARD * 2)
            assert not run.service.held_for_disk
            stop.set()
            await asyncio.wait_for(task, GUARD)
            after = {h.hand.id: h.events for h in finished_hands(run.store)}
        for hand_id, events in before.items():  # nothing already stored is lost
            assert after[hand_id] == events

    asyncio.run(main())


def mid_hand(keeper: Any) -> bool:
    """Tiles moving: the readers report each move until it is stored."""
    state = keeper.state
    return bool(keeper.playing and state is not None and state.phase.value == "turn")


@pytest.mark.timeout(300)
def test_a_full_disk_is_said_once_not_with_a_traceback_per_refused_event(
    mosquitto: Mosquitto, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The disk full mid-hand: every write refused as SQLite refuses it, no byte free, for
    as long as the table goes on reporting (the players press again and again). One line
    as play is held; none, and no traceback, for each report refused meanwhile."""
    config = config_for(tmp_path / "data", "xingguo", mosquitto.url, store={"min_free_mb": 1})
    refused: list[object] = []

    def full(*args: object, **_kw: object) -> None:
        refused.append(args)
        raise sqlalchemy.exc.OperationalError(
            "INSERT", {}, sqlite3.OperationalError("database or disk is full")
        )

    async def main() -> list[dict[str, Any]]:
        async with running(config, options(6, None)) as run:
            stop = asyncio.Event()
            task = asyncio.create_task(run.service.run(stop))
            await until(lambda: mid_hand(run.keeper), "a hand in play")
            assert run.service.disk is not None
            with capture_logs() as logs:
                monkeypatch.setattr(run.service.disk, "_free", lambda: 0)
                monkeypatch.setattr(run.store, "append", full)
                await until(lambda: len(refused) >= 20 or task.done(), "20 writes refused")
                assert not task.done(), task.exception()
                assert run.service.held_for_disk
            monkeypatch.undo()
            stop.set()
            await asyncio.wait_for(task, GUARD)
        return logs

    logs = asyncio.run(main())
    said = [e["event"] for e in logs if e["log_level"] in ("warning", "error", "critical")]
    assert said.count("disk full: play held until space is freed") == 1, said
    assert "could not handle a table event" not in said
    assert not [e for e in logs if "exc_info" in e or "exception" in e], "no traceback"
