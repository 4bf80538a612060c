"""The 精 as it is on a table without readers, in Debian's Chromium over a real Mosquitto:
no reader sees the flip, so no 精 is shown until staff enter one; then the entered one is
shown on the dealer card, the display and the console (whose tile picker counts it as a
tile lying face up). Restarted mid-hand, the table shows what the store holds at once:
the hand, its entered 精, and no waiting-for-staff notice (nothing is unexplained where
no reader looks)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.controller.mosquitto import Mosquitto
from tests.controller.service_helpers import (
    GUARD,
    wait_for,
)
from tests.controller.web.readerless_table import ReaderlessTable
from tests.controller.web.test_browser import browser  # noqa: F401 (a fixture)
from tests.controller.web.test_staff_api import PASSWORD
from tests.controller.web.test_staff_console import _log_in

SHOWN_WITHIN = 5.0  # seconds from the restarted web app's first answer to the hand it serves


def _enter_flip(url: str, indicator: str) -> str:
    """A staff login enters the turned-up tile as its own act; returns the hand's id."""
    with httpx.Client(base_url=url, timeout=GUARD) as http:
        login = http.post("/api/v1/auth/login", json={"name": "ann", "password": PASSWORD})
        assert login.status_code == 200, login.text
        http.headers["Authorization"] = f"Bearer {login.json()['token']}"
        seen = http.get("/api/v1/staff/hands/current").json()
        body = {"hand_id": seen["hand_id"], "seen": seen["seen"], "indicator": indicator}
        r = http.post("/api/v1/staff/hands/current/flip", json=body)
        assert r.status_code == 200, r.text
        return str(seen["hand_id"])


def _first_answer(url: str) -> float:
    """When the web app first answers (time.monotonic())."""

    def answered() -> float | None:
        try:
            httpx.get(f"{url}/api/v1/public/table", timeout=1.0)
        except httpx.TransportError:
            return None
        return time.monotonic()

    return float(wait_for(answered, "the restarted web app to answer"))


def _serving(url: str, hand_id: str, zheng: str) -> dict[str, Any]:
    """The public state once it holds the hand and its 精 (what every screen draws): timed
    by the server's answers, not by a browser's rendering of them on a busy machine."""

    def held() -> dict[str, Any] | None:
        state: dict[str, Any] = httpx.get(f"{url}/api/v1/public/state", timeout=GUARD).json()
        hand = state.get("hand") or {}
        return (
            state
            if hand.get("hand_id") == hand_id and (hand.get("jing") or {}).get("zheng") == zheng
            else None
        )

    return dict(wait_for(held, "the restarted web app to serve the hand and its 精"))


@pytest.mark.timeout(300)
def test_without_readers_no_jing_until_one_is_entered_then_the_entered_one_everywhere(
    browser: Any,  # noqa: F811
    mosquitto: Mosquitto,
    tmp_path: Path,
) -> None:
    table = ReaderlessTable(mosquitto, tmp_path)
    url = table.url
    table.start(fresh=True)
    errors: list[str] = []
    try:
        dealer = browser.new_page(viewport={"width": 390, "height": 844})
        display = browser.new_page(viewport={"width": 1024, "height": 1366})
        console = browser.new_page(viewport={"width": 1024, "height": 1366})
        for page in (dealer, display, console):
            page.on("pageerror", lambda e: errors.append(str(e)))
        dealer.goto(f"{url}/dealer")
        display.goto(f"{url}/display")
        dealer.wait_for_selector("#sub:has-text('庄家')")  # the hand is shown
        display.wait_for_selector("#jing .jing-empty")  # 未翻精
        assert "精" not in (dealer.text_content("#sub") or "")  # none before it is entered
        _log_in(console, url)
        console.wait_for_selector(  # (the picker: in the finish entry, closed)
            "#picker [data-kind='5s'] [data-left]:text-is('4')", state="attached"
        )

        hand_id = _enter_flip(url, "5s")
        dealer.wait_for_selector("#sub:has-text('正精 五条 · 副精 六条')")
        display.wait_for_selector("#jing [data-tile='5s']")
        display.wait_for_selector("#jing [data-tile='6s']")
        # the entered tile lies face up: three more of its kind, four of the others
        console.wait_for_selector(
            "#picker [data-kind='5s'] [data-left]:text-is('3')", state="attached"
        )
        assert console.text_content("#picker [data-kind='6s'] [data-left]") == "4"
    finally:
        table.halt()

    table.launch(fresh=False)  # a restart on the same data and port
    try:
        answered = _first_answer(url)
        state = _serving(url, hand_id, "5s")
        took = time.monotonic() - answered
        assert took < SHOWN_WITHIN, f"served {took:.1f} s after the first answer"
        assert state["jing"]["zheng_jing"] == "5s"
        table.wait_ready()
        state = httpx.get(f"{url}/api/v1/public/state", timeout=GUARD).json()
        assert "hand" not in state.get("status", {})  # no notice: nothing unexplained
        dealer.reload()
        dealer.wait_for_selector("#sub:has-text('正精 五条 · 副精 六条')")
        assert dealer.is_hidden("#stuck-banner")
        display.reload()
        display.wait_for_selector("#jing [data-tile='5s']")
        assert errors == []
    finally:
        table.halt()
