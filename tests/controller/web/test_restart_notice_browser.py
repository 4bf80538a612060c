"""A table with readers (the service's own virtual table, a real Mosquitto) killed (-9)
mid-hand and started again, watched in Debian's Chromium: the virtual table's walls are
new, so the resumed hand cannot go on. Within 5 s of the restarted service coming online
(on its own clock: its log) the hand waits for staff — one notice card on the dealer page
that says what to do, in Chinese only on the Chinese page, the dealer card saying the
same, no discrepancy card beside it — and the broker's retained ``status`` and
``/api/v1/public/state`` say it. The hold is stored with the hand: started once more, the
table says it again at once, the retained status equal to what the store holds."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest

from controller.process.local_ports import free_local_port
from controller.store import EventStore
from tests.controller.mosquitto import Mosquitto
from tests.controller.service_helpers import recording, until
from tests.controller.sim.test_virtual_table_restart import MID_HAND, _query, _stopped, _url
from tests.controller.web.test_browser import browser  # noqa: F401 (a fixture)

GUARD = 120.0  # a hang guard, never a measured expectation
WAITING = "waiting_for_staff"
WITHIN = 5.0  # seconds from the restarted service's going online to its notice, as it logs them
T = TypeVar("T")
FOLDED = ("xianggong", "tile_missing", "tile_misplaced", "duplicate_tag", "walls_changed")


def _run(main: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """``main`` on an event loop of its own (Playwright's sync API holds this thread's)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(lambda: asyncio.run(main())).result()


def _start(tmp_path: Path, env: dict[str, str], name: str) -> subprocess.Popen[bytes]:
    log = (tmp_path / f"{name}.log").open("wb")
    cli = [sys.executable, "-m", "controller.cli", "run", "--seed", "7"]
    return subprocess.Popen(cli, env=env, cwd=tmp_path, stdout=log, stderr=log)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(30)


async def _notice_after_online(rec: Any, heard: int, proc: subprocess.Popen[bytes]) -> None:
    """Until the restarted service has said it is online, then that the hand waits."""
    online = False
    deadline = time.monotonic() + GUARD
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"the service exited ({proc.returncode})"
        statuses = [p for n, p, _ in rec.messages[heard:] if n == "status"]
        online = online or any(s.get("state") == "online" for s in statuses)
        if online and any(s.get("hand") == WAITING for s in statuses):
            return
        await asyncio.sleep(0.02)
    raise AssertionError("the restarted service never said the hand waits for staff")


def _online_to_notice(log: Path) -> float:
    """Seconds from the service's going online (its publisher connected: the online status)
    to its waiting notice, by the times of its own log: a busy machine slowing the test's
    process (the MQTT client that hears both) adds nothing; the service's own pace counts."""
    at: dict[str, datetime] = {}
    for line in log.read_text(errors="replace").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        event, client = entry.get("event"), str(entry.get("client", ""))
        if event == "mqtt connected" and client.startswith("publisher"):
            at.setdefault("online", datetime.fromisoformat(entry["timestamp"]))
        elif event == "hand waits for staff":
            at.setdefault("notice", datetime.fromisoformat(entry["timestamp"]))
    assert at.keys() == {"online", "notice"}, f"{log.name} logged only {sorted(at)}"
    return (at["notice"] - at["online"]).total_seconds()


@pytest.mark.timeout(420)
def test_a_hand_resumed_on_new_walls_waits_for_staff_as_one_notice_within_5_s(
    browser: Any,  # noqa: F811
    mosquitto: Mosquitto,
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    db = data / "mjtable.db"
    port = free_local_port()
    url = f"http://127.0.0.1:{port}"
    env = {
        **os.environ,
        "MJTABLE_DATA_DIR": str(data),
        "MJTABLE_HARDWARE__VIRTUAL": "true",
        "MJTABLE_MQTT__EMBEDDED": "false",
        "MJTABLE_MQTT__URL": mosquitto.url,
        "MJTABLE_WEB__HOST": "127.0.0.1",
        "MJTABLE_WEB__PORT": str(port),
        "MJTABLE_METRICS__ENABLED": "false",
        "MJTABLE_LOG__FORMAT": "json",
    }
    env.pop("NOTIFY_SOCKET", None)

    async def kill_mid_hand() -> None:
        first = _start(tmp_path, env, "first")
        try:

            def frozen_mid_hand() -> bool:
                assert first.poll() is None, "the first service exited"
                first.send_signal(signal.SIGSTOP)
                _stopped(first.pid)
                there = bool(_query(db, MID_HAND))
                if not there:
                    first.send_signal(signal.SIGCONT)
                return there

            await until(frozen_mid_hand, "a hand in play to kill", GUARD)
            first.send_signal(signal.SIGKILL)
            first.wait(30)
        finally:
            if first.poll() is None:
                first.kill()

    async def restarted(name: str) -> tuple[subprocess.Popen[bytes], dict[str, Any]]:
        """Started again, its notice heard: the status retained after it."""
        async with recording(mosquitto.port) as rec:
            heard = len(rec.messages)
            proc = _start(tmp_path, env, name)
            await _notice_after_online(rec, heard, proc)
        async with recording(mosquitto.port) as fresh:  # a display that connects now
            await until(lambda: fresh.of("status"), "the retained status", GUARD)
            (retained,) = fresh.of("status")[:1]
        return proc, retained

    _run(kill_mid_hand)
    (open_hand,) = [h[0] for h in _query(db, "SELECT id FROM hands WHERE status = 'open'")]
    second, retained = _run(lambda: restarted("second"))
    try:
        assert (retained["state"], retained["hand"], retained["hand_id"]) == (
            "online",
            WAITING,
            open_hand,
        )
        state = httpx.get(f"{url}/api/v1/public/state", timeout=GUARD).json()
        assert state["status"]["hand"] == WAITING

        page = browser.new_page(viewport={"width": 390, "height": 844})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{url}/dealer")
        page.wait_for_selector("#stuck-banner:not([hidden]) .why:has-text('牌墙已换')")
        said = page.text_content("#stuck-banner") or ""
        assert "请工作人员在控制台手动结束本局" in said
        assert not re.search("[A-Za-z]", said), said  # Chinese only (English: the toggle)
        page.wait_for_selector("#instruction:has-text('等待工作人员')")  # the dealer card agrees
        kinds = page.eval_on_selector_all("#alerts .alert", "ns => ns.map((n) => n.dataset.kind)")
        assert not set(kinds) & set(FOLDED), kinds  # folded into the one notice
        display = browser.new_page(viewport={"width": 1024, "height": 1366})
        display.on("pageerror", lambda e: errors.append(str(e)))
        display.goto(f"{url}/display")  # the players' display says it too
        display.wait_for_selector("#phase:text-is('等待工作人员：牌墙已换')")
        page.click("#lang")  # English on the toggle
        page.wait_for_selector("#stuck-banner h3:text-is('Waiting for staff')")
        assert "the walls changed" in (page.text_content("#stuck-banner") or "")
        assert errors == []
    finally:
        _stop(second)
    took = _online_to_notice(tmp_path / "second.log")  # (its log complete once it stopped)
    assert took < WITHIN, f"the notice came {took:.1f} s after the service was online"

    # started again: the hold is in the store, said at once and retained as stored
    third, retained = _run(lambda: restarted("third"))
    try:
        store = EventStore.open(_url(db))
        try:
            (hold,) = [a for a in store.alerts_of(open_hand) if a.kind == WAITING]  # once
        finally:
            store.close()
        assert (retained["state"], retained["hand"], retained["hand_id"]) == (
            "online",
            WAITING,
            open_hand,
        )
        assert retained["why"] == {"zh": hold.message, "en": hold.detail}  # as stored
    finally:
        _stop(third)
    took = _online_to_notice(tmp_path / "third.log")
    assert took < WITHIN, f"the notice came {took:.1f} s after the service was online"
