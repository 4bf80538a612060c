"""The service with its own virtual table (``hardware.virtual = true``, as the demo and a
technician's first try run it) killed (-9) and started again on the same data.

The session and the open hand are resumed as on a real table. The virtual table's tiles
lived in the killed process: the new one's are shuffled anew, so a hand open at the kill
cannot be explained by the walls the table now shows (the parlour's case: a restart
mid-hand, then no hand played for ten minutes). The status says the hand waits for staff;
a staff login voids it through the API (who, when, why in the hand's log) and the table
plays the next hands of the same session, the virtual players taking the deal the service
gives. Killed between hands, the session goes on at the next hand.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from controller.process.local_ports import free_local_port
from controller.store import EventStore
from tests.controller.mosquitto import Mosquitto
from tests.controller.mqtt_helpers import ONLINE
from tests.controller.service_helpers import recording, until

GUARD = 120.0  # a hang guard, never a measured expectation
PASSWORD = "long enough password"
NOTICE = "牌墙已换：请工作人员手动结束或作废本局"


def _query(db: Path, sql: str) -> list[tuple[Any, ...]]:
    if not db.exists():
        return []
    with contextlib.closing(sqlite3.connect(db, timeout=5)) as c:
        try:
            return list(c.execute(sql).fetchall())
        except sqlite3.OperationalError:  # the schema is not there yet
            return []


def _query_settled(db: Path, sql: str) -> list[tuple[Any, ...]]:
    """``sql``'s rows if no writer is inside a transaction (as a stopped process may be:
    its commit written to the WAL but not yet in the index readers go by, so unseen now and
    there once it is killed), else none. Taking the write lock, without waiting, says so."""
    if not db.exists():
        return []
    with contextlib.closing(sqlite3.connect(db, timeout=0, isolation_level=None)) as c:
        try:
            c.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError:  # locked by a writer, or no schema yet
            return []
        try:
            return list(c.execute(sql).fetchall())
        except sqlite3.OperationalError:
            return []
        finally:
            c.execute("ROLLBACK")


MID_HAND = (
    "SELECT count(*) FROM events e JOIN hands h ON h.id = e.hand_id"
    " WHERE h.status = 'open' HAVING count(*) > 20"
)
BETWEEN_HANDS = (
    "SELECT 1 WHERE EXISTS (SELECT 1 FROM hands WHERE status = 'finished')"
    " AND NOT EXISTS (SELECT 1 FROM hands WHERE status = 'open')"
)
HANDS = "SELECT id, hand_no, status, session_id, table_seq FROM hands ORDER BY table_seq"


def _stopped(pid: int) -> None:
    """Returns once every thread of ``pid`` is stopped (SIGSTOP is delivered, not done)."""
    for _ in range(5000):
        try:
            tasks = Path(f"/proc/{pid}/task").iterdir()
            states = [(t / "stat").read_text().rsplit(")", 1)[1].split()[0] for t in tasks]
        except FileNotFoundError:  # a thread ended while being looked at
            continue
        if all(state in "Tt" for state in states):
            return
        time.sleep(0.001)
    raise AssertionError(f"process {pid} did not stop")


def _url(db: Path) -> str:
    return f"sqlite:///{db}"


def _log(db: Path, hand_id: str) -> list[dict[str, Any]]:
    store = EventStore.open(_url(db))
    try:
        return list(store.load_hand(hand_id).event_dicts())
    finally:
        store.close()


@pytest.mark.timeout(420)
@pytest.mark.parametrize("killed", [MID_HAND, BETWEEN_HANDS], ids=["mid-hand", "between-hands"])
def test_killed_and_started_again_the_session_goes_on_through_staff(
    killed: str, mosquitto: Mosquitto, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    db = data / "mjtable.db"
    port = free_local_port()
    env = {
        **os.environ,
        "MJTABLE_DATA_DIR": str(data),
        "MJTABLE_HARDWARE__VIRTUAL": "true",
        "MJTABLE_MQTT__EMBEDDED": "false",
        "MJTABLE_MQTT__URL": mosquitto.url,
        "MJTABLE_WEB__HOST": "127.0.0.1",
        "MJTABLE_WEB__PORT": str(port),
        "MJTABLE_METRICS__ENABLED": "false",
        "MJTABLE_TRACKER__STUCK_AFTER": "2",
        "MJTABLE_LOG__FORMAT": "json",
    }
    env.pop("NOTIFY_SOCKET", None)
    cli = [sys.executable, "-m", "controller.cli"]
    subprocess.run(
        [*cli, "staff", "add", "ann", "--table", "t1", "--password-stdin", "--store", _url(db)],
        input=PASSWORD.encode(),
        env=env,
        cwd=tmp_path,
        check=True,
        capture_output=True,
    )

    def start(name: str) -> subprocess.Popen[bytes]:
        log = (tmp_path / f"{name}.log").open("wb")
        return subprocess.Popen(
            [*cli, "run", "--seed", "7"], env=env, cwd=tmp_path, stdout=log, stderr=log
        )

    async def wait(what: str, check: Any, proc: subprocess.Popen[bytes]) -> None:
        def ok() -> bool:
            assert proc.poll() is None, f"the service exited ({proc.returncode}) before {what}"
            return bool(check())

        await until(ok, what, GUARD)

    async def main() -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]], str | None]:
        stale: str | None = None
        async with recording(mosquitto.port) as rec:
            first = start("first")
            try:

                def frozen_at_the_moment() -> bool:
                    # Stopped while its store is looked at, so the state seen is the state
                    # killed: a poll then a kill would race the next hand opening.
                    first.send_signal(signal.SIGSTOP)
                    _stopped(first.pid)
                    there = bool(_query_settled(db, killed))
                    if not there:
                        first.send_signal(signal.SIGCONT)
                    return there

                await wait("the moment to kill", frozen_at_the_moment, first)
                first.send_signal(signal.SIGKILL)
                first.wait(30)
            finally:
                if first.poll() is None:
                    first.kill()
            before = _query(db, HANDS)
            open_hands = [h for h in before if h[2] == "open"]
            assert len(open_hands) == (1 if killed == MID_HAND else 0)
            finished = sum(1 for h in before if h[2] == "finished")
            heard = len(rec.messages)
            second = start("second")
            try:
                if open_hands:
                    stale = open_hands[0][0]

                    def stuck() -> bool:
                        return any(
                            s.get("hand") == "waiting_for_staff" and s.get("text") == NOTICE
                            for name, s, _ in rec.messages[heard:]
                            if name == "status"
                        )

                    await wait("the status: waiting for staff", stuck, second)
                    await _void(port, stale)
                played = finished + (1 if stale else 0) + 2  # the void, then two more
                await wait(
                    "two hands played after the restart",
                    lambda: sum(h[2] == "finished" for h in _query(db, HANDS)) >= played,
                    second,
                )
            finally:
                second.send_signal(signal.SIGTERM)
                try:
                    second.wait(30)
                except subprocess.TimeoutExpired:
                    second.kill()
            statuses = [s for name, s, _ in rec.messages[heard:] if name == "status"]
            if stale:
                waited = [i for i, s in enumerate(statuses) if s.get("hand")]
                assert ONLINE in statuses[waited[-1] :]
        return before, _query(db, HANDS), stale

    before, after, stale = asyncio.run(main())
    if after and after[-1][2] == "open":
        # stopped as the table shuffled: the next hand opened, its dice committed, its
        # walls not yet up (it resumes at the next start)
        opened = [e["type"] for e in _log(db, after[-1][0])]
        assert opened == ["hand_started", "dice_committed"]
        after = after[:-1]
    # one session throughout, numbered on: nothing aborted, nothing started afresh
    assert {h[3] for h in after} == {before[0][3]}
    assert [h[2] for h in after] == ["finished"] * len(after)
    assert [h[1] for h in after] == list(range(1, len(after) + 1))
    assert len(after) >= len(before) + 2
    if stale is not None:
        log = _log(db, stale)
        (void,) = [e for e in log if e["type"] == "hand_voided"]
        assert (void["by"], void["role"], void["reason"]) == ("ann", "staff", "restarted mid-hand")
        assert void["at"]
        assert log[-1]["type"] == "dice_seed_revealed"  # (after the settlement)
        assert log[-2]["type"] == "settled" and log[-2]["settlement"]["void"]
        (was,) = [h for h in before if h[0] == stale]
        assert next(h for h in after if h[0] == stale)[1] == was[1]  # the hand itself resumed


async def _void(port: int, hand_id: str) -> None:
    """A staff login looks at the hand waiting for it and voids it, with the reason."""
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=GUARD) as http:
        for _ in range(200):  # (the web app may not listen yet)
            with contextlib.suppress(httpx.TransportError):
                login = await http.post(
                    "/api/v1/auth/login", json={"name": "ann", "password": PASSWORD}
                )
                break
            await asyncio.sleep(0.1)
        assert login.status_code == 200, login.text
        http.headers["Authorization"] = f"Bearer {login.json()['token']}"
        seen = (await http.get("/api/v1/staff/hands/current")).json()
        assert (seen["hand_id"], seen["in_progress"]) == (hand_id, True)
        body = {"seen": seen["seen"], "reason": "restarted mid-hand"}
        r = await http.post(f"/api/v1/staff/hands/{hand_id}/void", json=body)
        assert r.status_code == 200, r.text
