"""The finish entry on a table without readers (xingguo), in Debian's Chromium at 390×844:
staff enter each result with taps only, asking of the other seats only what the
settlement reads (their 精), and each settles as ``mjtable settle`` settles the same entry.
A 14-tile self-drawn win in at most 22 taps, a win on a discard in at most 24, a 流局 that
settles nothing in at most 3."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.controller.mosquitto import Mosquitto
from tests.controller.service_helpers import GUARD
from tests.controller.web.readerless_table import ReaderlessTable
from tests.controller.web.test_browser import browser  # noqa: F401 (a fixture)
from tests.controller.web.test_staff_console import _log_in

FINISH = "/api/v1/staff/hands/current/finish"


class Taps:
    """Every click the staff make, counted."""

    def __init__(self, page: Any) -> None:
        self.page, self.n = page, 0

    def __call__(self, selector: str) -> None:
        self.page.click(selector, timeout=GUARD * 1000)
        self.n += 1

    def tiles(self, kinds: list[str]) -> None:
        for k in kinds:
            self(f'#fe-picker [data-kind="{k}"]')


def _settled_by_cli(stored: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
    """``mjtable settle`` on the entry: the hand's header as the table keeps it (dealer,
    wind), the seats, the win and the 精 as the console sent them."""
    winners = body.get("winners", [])
    seats: list[dict[str, Any]] = [{}] * 4
    for w in winners:
        seats[w["seat"]] = {k: w[k] for k in ("hand", "melds", "discards") if k in w}
    for s in body["seats"]:
        seats[s["seat"]] = {k: v for k, v in s.items() if k != "seat"}
    request = {k: stored[k] for k in ("ruleset", "dealer", "dealer_streak", "prevailing_wind")}
    request |= {"indicator": body.get("indicator", stored["indicator"]), "seats": seats}
    request["win"] = [
        {k: w[k] for k in ("seat", "tile", "from")} | {f: True for f in w.get("flags", [])}
        for w in winners
    ] or None
    out = subprocess.run(
        [sys.executable, "-m", "controller.cli", "settle", "-"],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        check=True,
        timeout=GUARD,
    )
    return dict(json.loads(out.stdout))


def _stored_request(site: ReaderlessTable, answer: dict[str, Any]) -> dict[str, Any]:
    """The finish as the hand's log keeps it (its header: dealer, wind, 精)."""
    log = site.run.store.load_hand(answer["hand_id"]).events
    act = next(e for e in reversed(log) if e.type == "finished_by_staff")
    return dict(act.payload["request"])


def _finish(page: Any, taps: Taps) -> tuple[dict[str, Any], dict[str, Any]]:
    """The last tap (settle / confirm): the body sent and the API's answer."""
    with page.expect_response(
        lambda r: r.url.endswith(FINISH) and r.request.method == "POST"
    ) as sent:
        taps("#fe-go")
    assert sent.value.status == 200, sent.value.text()
    return json.loads(sent.value.request.post_data), sent.value.json()


def _next_hand(page: Any) -> None:
    """The settled hand's entry is gone (it forgets); the dice start the next hand."""
    page.wait_for_selector("#finish-entry:not(:has(#fe-won-0))", state="attached")
    page.click("#roll-dice", timeout=GUARD * 1000)  # (not the entry's taps)


def _open(page: Any, taps: Taps) -> None:
    """The task card's 手动结束本局 opens the entry (a tap, counted)."""
    taps("#open-finish")
    page.wait_for_selector("#fe-won-0")


@pytest.mark.timeout(300)
def test_results_entered_by_taps_settle_as_mjtable_settle(
    browser: Any,  # noqa: F811
    mosquitto: Mosquitto,
    tmp_path: Path,
) -> None:
    site = ReaderlessTable(mosquitto, tmp_path)
    site.start()
    try:
        page = browser.new_page(viewport={"width": 390, "height": 844})  # a phone
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        _log_in(page, f"http://127.0.0.1:{site.port}")
        page.wait_for_selector("#open-finish")

        # a self-drawn win: 1号位, 9p flipped (正精 9p, 副精 1p); 2号位 holds a 正精,
        # 3号位 a 副精, 4号位 none
        taps = Taps(page)
        _open(page, taps)
        taps("#fe-won-0")
        taps.tiles(["9p"])  # the 精 first (no reader saw it)
        taps.tiles(["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m"])
        taps.tiles(["2s", "3s", "4s", "5s", "5s"])
        taps("#fe-s1-9p-plus")
        taps("#fe-s2-1p-plus")
        body, answer = _finish(page, taps)
        assert taps.n <= 22, taps.n
        assert body["winners"][0]["hand"] == "1m2m3m4m5m6m7m8m9m2s3s4s5s5s"
        assert body["winners"][0]["tile"] == "5s" and body["winners"][0]["from"] == "self"
        assert [s["hand"] for s in body["seats"]] == ["9p", "1p", ""]
        assert all(s["partial"] for s in body["seats"])
        settled = answer["settlement"]
        cli = _settled_by_cli(_stored_request(site, answer), body)
        assert (cli["lines"], cli["net"]) == (settled["lines"], settled["net"])
        assert sum(ln["amount"] for ln in settled["lines"] if ln["to"] == 0) > 0

        # a win on a discard: 2号位, who punged 7s off 1号位 (its 上家), wins on 3号位's N
        _next_hand(page)
        taps = Taps(page)
        _open(page, taps)
        taps("#fe-won-1")
        taps("#fe-how-2")
        taps.tiles(["E"])  # 正精 E, 副精 S
        taps.tiles(["1p", "2p", "3p", "4p", "5p", "6p", "7p", "8p", "9p", "7s", "7s", "7s"])
        taps("#fe-meld-pung")  # the last three tapped
        taps.tiles(["N", "N"])
        taps("#fe-s0-E-plus")
        taps("#fe-s3-S-plus")
        taps("#fe-s3-S-plus")
        body, answer = _finish(page, taps)
        assert taps.n <= 24, taps.n
        assert body["winners"][0]["from"] == 2 and body["winners"][0]["tile"] == "N"
        assert body["winners"][0]["melds"] == [{"type": "pung", "tiles": "7s7s7s", "from": 0}]
        cli = _settled_by_cli(_stored_request(site, answer), body)
        settled = answer["settlement"]
        assert (cli["lines"], cli["net"]) == (settled["lines"], settled["net"])

        # a 流局: xingguo settles nothing on it, so it is a confirmation
        _next_hand(page)
        taps = Taps(page)
        _open(page, taps)
        taps("#fe-exhausted")
        page.wait_for_selector("#fe-confirm-only")
        body, answer = _finish(page, taps)
        assert taps.n <= 3, taps.n
        assert body["result"] == "exhausted" and answer["settlement"]["void"] is True
        page.wait_for_selector("#finish-entry:not(:has(#fe-won-0))", state="attached")  # forgets
        assert errors == []
    finally:
        site.halt()


@pytest.mark.timeout(120)
def test_an_entry_opened_by_a_tap_stays_open_as_the_dice_start_its_hand(
    browser: Any,  # noqa: F811
    mosquitto: Mosquitto,
    tmp_path: Path,
) -> None:
    """Staff open the entry while the hand waits for its dice, then roll: the hand moves on
    to its result, and the entry they opened stays open under their finger."""
    site = ReaderlessTable(mosquitto, tmp_path)
    site.start()
    try:
        page = browser.new_page(viewport={"width": 390, "height": 844})
        _log_in(page, f"http://127.0.0.1:{site.port}")
        page.wait_for_selector("body[data-task=dice] #roll-dice")
        taps = Taps(page)
        _open(page, taps)
        for _ in range(3):  # the break dice, then any the 精 needs, until the result is due
            if page.get_attribute("body", "data-task") != "dice":
                break
            hint = page.text_content("#task-hint")
            taps("#roll-dice")
            page.wait_for_function(
                "h => document.getElementById('task-hint').textContent !== h", arg=hint
            )
        assert page.get_attribute("body", "data-task") == "enter"
        assert page.is_visible("#fe-won-0")
        assert page.text_content("#open-finish") == "收起"
    finally:
        site.halt()
