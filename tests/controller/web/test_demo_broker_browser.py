"""``mjtable demo`` as a user starts it, its pages fed from its embedded (amqtt) broker's
WebSocket listener, in Debian's Chromium: the floor link it prints shows the bots' hand
live, and the table's display opened from the floor follows the same hand through the
broker as the web app's own stream (server-sent events) does.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from controller.process.local_ports import free_local_port
from tests.controller.web.test_browser import browser  # noqa: F401

GUARD_MS = 30_000  # a hang guard, never a measured expectation


def _first_line(proc: subprocess.Popen[str], guard: float) -> str:
    """The demo's --json line (read in a thread: a hung demo must not hang the test)."""
    stdout = proc.stdout
    assert stdout is not None
    out: list[str] = []
    reader = threading.Thread(target=lambda: out.append(stdout.readline()), daemon=True)
    reader.start()
    reader.join(guard)
    if not out or not out[0]:
        raise AssertionError(f"the demo said nothing (exit {proc.poll()})")
    return out[0]


@pytest.fixture
def demo(tmp_path: Path) -> Iterator[dict[str, Any]]:
    log = (tmp_path / "demo.log").open("w")
    command = [sys.executable, "-m", "controller.cli", "demo", "--json", "--seed", "11"]
    command += ["--data-dir", str(tmp_path / "data"), "--port", str(free_local_port())]
    command += ["--think", "0.2"]
    proc = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=log,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        yield json.loads(_first_line(proc, GUARD_MS / 1000))
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            code = proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            raise
        finally:
            log.close()
        assert code == 0, (tmp_path / "demo.log").read_text()[-3000:]


@pytest.mark.timeout(180)
def test_the_demos_floor_and_display_follow_a_hand_through_its_broker(
    browser: Any,  # noqa: F811
    demo: dict[str, Any],
) -> None:
    web, ws = demo["web"], demo["mqtt_ws"]
    assert ws.startswith("ws://127.0.0.1:") and demo["floor"] == f"{web}floor?broker={ws}"

    page = browser.new_page(viewport={"width": 1000, "height": 700})
    page.goto(demo["floor"])
    page.wait_for_selector('#live-banner[data-state="connected"]', timeout=GUARD_MS)
    card = '.floor-card[data-table="t1"]'
    page.wait_for_selector(f'{card}[data-state="in_hand"]', timeout=GUARD_MS)
    page.wait_for_selector(f"{card} .hand-no:text-is('第1局')", timeout=GUARD_MS)
    assert [c.get_attribute("data-table") for c in page.query_selector_all(".floor-card")] == ["t1"]

    # The card opens the table's display, fed from the same broker.
    page.click(f"{card} header")
    page.wait_for_url("**/display?**table=t1**", timeout=GUARD_MS)
    assert parse_qs(urlsplit(page.url).query)["broker"] == [ws]
    page.wait_for_selector('#live-banner[data-state="connected"]', timeout=GUARD_MS)
    shown = page.wait_for_selector('body[data-hand-id]:not([data-hand-id=""])', timeout=GUARD_MS)
    assert shown is not None
    hand_id = shown.get_attribute("data-hand-id")
    page.wait_for_selector("#wall-big:not(:text-is('—'))", timeout=GUARD_MS)
    wall = page.text_content("#wall-big")
    # live, not only the retained state: the bots draw, the wall shrinks
    page.wait_for_selector(f"#wall-big:not(:text-is('{wall}'))", timeout=GUARD_MS)

    # The web app's own stream shows the same hand.
    sse = browser.new_page()
    sse.goto(f"{web}display")
    sse.wait_for_selector(f'body[data-hand-id="{hand_id}"]', timeout=GUARD_MS)
    sse.close()
    page.close()
