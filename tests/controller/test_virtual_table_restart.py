"""The service with its own virtual table (``hardware.virtual = true``, as the demo and a
technician's first try run it), stopped by systemd's SIGTERM mid-hand and started again.

The new process makes a new virtual table, whose tiles are not where the stored hand left
them, nor is the last hand's result (between hands): resumed, no hand ever ended (walls
changed, a seat with no tiles, tiles missing). A new session starts: a hand open at the stop
is closed as aborted with the reason, its events kept, and the table plays new hands.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from controller.runtime import VIRTUAL_TABLE_RESTARTED
from tests.controller.mosquitto import Mosquitto

GUARD = 90.0  # a hang guard, never a measured expectation


def _query(db: Path, sql: str) -> list[tuple[Any, ...]]:
    if not db.exists():
        return []
    with contextlib.closing(sqlite3.connect(db, timeout=5)) as c:
        try:
            return list(c.execute(sql).fetchall())
        except sqlite3.OperationalError:  # the schema is not there yet
            return []


def _wait_for(what: str, check: object, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + GUARD
    while not check():  # type: ignore[operator]
        assert proc.poll() is None, f"the service exited ({proc.returncode}) before {what}"
        assert time.monotonic() < deadline, f"no {what} within {GUARD:.0f} s"
        time.sleep(0.05)


MID_HAND = (
    "SELECT count(*) FROM events e JOIN hands h ON h.id = e.hand_id"
    " WHERE h.status = 'open' HAVING count(*) > 20"
)
BETWEEN_HANDS = (
    "SELECT 1 WHERE EXISTS (SELECT 1 FROM hands WHERE status = 'finished')"
    " AND NOT EXISTS (SELECT 1 FROM hands WHERE status = 'open')"
)


@pytest.mark.timeout(300)
@pytest.mark.parametrize("stopped", [MID_HAND, BETWEEN_HANDS], ids=["mid-hand", "between-hands"])
def test_stopped_and_started_again_it_plays_new_hands(
    stopped: str, mosquitto: Mosquitto, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    db = data / "mjtable.db"
    env = {
        **os.environ,
        "MJTABLE_DATA_DIR": str(data),
        "MJTABLE_HARDWARE__VIRTUAL": "true",
        "MJTABLE_MQTT__EMBEDDED": "false",
        "MJTABLE_MQTT__URL": mosquitto.url,
        "MJTABLE_WEB__ENABLED": "false",
        "MJTABLE_METRICS__ENABLED": "false",
        "MJTABLE_LOG__FORMAT": "json",
    }
    env.pop("NOTIFY_SOCKET", None)

    def start(name: str) -> subprocess.Popen[bytes]:
        log = (tmp_path / f"{name}.log").open("wb")
        cmd = [sys.executable, "-m", "controller.cli", "run"]
        return subprocess.Popen(cmd, env=env, cwd=tmp_path, stdout=log, stderr=log)

    first = start("first")
    try:
        _wait_for("the moment to stop", lambda: _query(db, stopped), first)
        first.send_signal(signal.SIGTERM)  # systemctl stop
        assert first.wait(30) == 0
    finally:
        if first.poll() is None:
            first.kill()
    stale = _query(db, "SELECT id FROM hands WHERE status = 'open'")  # (none between hands)
    assert len(stale) == (1 if stopped == MID_HAND else len(stale))
    played = len(_query(db, "SELECT id FROM hands WHERE status = 'finished'"))

    second = start("second")
    try:
        _wait_for(
            "hand played after the restart",
            lambda: len(_query(db, "SELECT id FROM hands WHERE status = 'finished'")) > played,
            second,
        )
    finally:
        second.send_signal(signal.SIGTERM)
        try:
            second.wait(30)
        except subprocess.TimeoutExpired:
            second.kill()
    for (hand_id,) in stale:
        ((status, note, events),) = _query(
            db,
            "SELECT status, note, (SELECT count(*) FROM events WHERE hand_id = hands.id)"
            f" FROM hands WHERE id = '{hand_id}'",
        )
        assert (status, note) == ("aborted", VIRTUAL_TABLE_RESTARTED)
        assert int(events) > 0  # kept
        assert b"open hand aborted" in (tmp_path / "second.log").read_bytes()
