"""The finish entry's rarer results, in Debian's Chromium at 390×844 on a table without
readers: each asked only where the hand's ruleset reads it (its needs), entered by taps,
and settled as ``mjtable settle`` settles the same entry.

xingguo: a 杠上花 with another seat's 杠精 (an exposed kong: 包) and a pung that claimed a
精 (包); a 抢杠 (the robbed pung and whom it came from); a 天胡. guangdong: two winners of
one discard (it pays both), a 海底捞月."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.controller.mosquitto import Mosquitto
from tests.controller.web.readerless_table import ReaderlessTable
from tests.controller.web.test_browser import browser  # noqa: F401 (a fixture)
from tests.controller.web.test_finish_entry_browser import (
    Taps,
    _finish,
    _next_hand,
    _open,
    _settled_by_cli,
    _stored_request,
)
from tests.controller.web.test_staff_console import _log_in

WIN_AFTER_KONG = ["3s", "4s", "5s", "6s", "7s", "8s", "3p", "4p", "5p", "7m", "7m"]


def _console(browser: Any, site: ReaderlessTable) -> tuple[Any, list[str]]:  # noqa: F811
    page = browser.new_page(viewport={"width": 390, "height": 844})  # a phone
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    _log_in(page, site.url)
    page.wait_for_selector("#open-finish")
    return page, errors


def _as_cli(site: ReaderlessTable, body: dict[str, Any], answer: dict[str, Any]) -> None:
    cli = _settled_by_cli(_stored_request(site, answer), body)
    settled = answer["settlement"]
    assert (cli["lines"], cli["net"]) == (settled["lines"], settled["net"])


@pytest.mark.timeout(300)
def test_kongs_claimed_jing_robbed_kongs_and_flags_settle_as_mjtable_settle(
    browser: Any,  # noqa: F811
    mosquitto: Mosquitto,
    tmp_path: Path,
) -> None:
    site = ReaderlessTable(mosquitto, tmp_path)
    site.start()
    try:
        page, errors = _console(browser, site)

        # 杠上花 by 2号位 (a concealed kong of 2m); 3号位 an exposed kong of the 副精 1p
        # off 4号位 (杠精, 包); 4号位 a pung of the 正精 9p off 1号位 (a claimed 精, 包)
        taps = Taps(page)
        _open(page, taps)
        taps("#fe-won-1")
        assert page.locator("#fe-rob_kong").count() == 0  # (抢杠 is a win on another's tile)
        taps("#fe-kong_replacement")
        taps.tiles(["9p", "2m", "2m", "2m", "2m"])
        taps("#fe-meld-kong_concealed")
        taps.tiles(WIN_AFTER_KONG)
        taps("#fe-s2-melds")
        taps("#fe-s2-kong-1p")
        taps("#fe-s2-m0-type")  # 暗杠 → 明杠
        assert page.is_disabled("#fe-go")  # (an exposed kong is claimed from someone)
        taps("#fe-s2-m0-from-3")
        taps("#fe-s3-melds")
        taps("#fe-s3-pung-9p")
        taps("#fe-s3-m0-from-0")
        body, answer = _finish(page, taps)
        winner = body["winners"][0]
        assert winner["from"] == "kong_replacement" and winner["tile"] == "7m"
        assert winner["melds"] == [{"type": "kong_concealed", "tiles": "2m2m2m2m"}]
        seats = {s["seat"]: s for s in body["seats"]}
        assert seats[2]["melds"] == [{"type": "kong_exposed", "tiles": "1p1p1p1p", "from": 3}]
        assert seats[3]["melds"] == [{"type": "pung", "tiles": "9p9p9p", "from": 0}]
        _as_cli(site, body, answer)
        codes = {ln["code"] for ln in answer["settlement"]["lines"]}
        assert {"gang_jing.bao", "jing.bao"} <= codes

        # 抢杠: 3号位 robs 4号位's kong of 3m (its pung came off 2号位)
        _next_hand(page)
        taps = Taps(page)
        _open(page, taps)
        taps("#fe-won-2")
        taps("#fe-how-3")
        taps("#fe-rob_kong")
        taps.tiles(["E"])
        taps.tiles(["1p", "2p", "3p", "4p", "5p", "6p", "7p", "8p", "9p", "5s", "5s"])
        taps.tiles(["1m", "2m", "3m"])
        assert page.is_disabled("#fe-go")  # (whom the robbed pung came from, first)
        taps("#fe-rob-from-1")
        body, answer = _finish(page, taps)
        assert body["winners"][0]["from"] == "rob_kong:3"
        robbed = next(s for s in body["seats"] if s["seat"] == 3)
        assert robbed["melds"] == [{"type": "pung", "tiles": "3m3m3m", "from": 1}]
        _as_cli(site, body, answer)
        assert answer["settlement"]["lines"][0]["code"] == "win.rob_kong"

        # 天胡: the dealer's flag (offered to the dealer only)
        _next_hand(page)
        taps = Taps(page)
        _open(page, taps)
        dealer = site.run.keeper.state.dealer  # (the new hand's, now that it is open)
        taps(f"#fe-won-{(dealer + 1) % 4}")
        assert page.locator("#fe-flag-tian").count() == 0
        taps(f"#fe-won-{dealer}")
        taps.tiles(["9p", *WIN_AFTER_KONG[:-2], "1m", "2m", "3m", "7m", "7m"])
        taps("#fe-flag-tian")
        body, answer = _finish(page, taps)
        assert body["winners"][0]["flags"] == ["tian"]
        _as_cli(site, body, answer)
        assert any("天胡" in ln["reason"] for ln in answer["settlement"]["lines"])
        assert errors == []
    finally:
        site.halt()


@pytest.mark.timeout(300)
def test_two_winners_of_a_discard_and_the_last_tile_settle_as_mjtable_settle(
    browser: Any,  # noqa: F811
    mosquitto: Mosquitto,
    tmp_path: Path,
) -> None:
    site = ReaderlessTable(mosquitto, tmp_path)
    site.config = site.config.model_copy(
        update={"ruleset": site.config.ruleset.model_copy(update={"id": "guangdong"})}
    )
    site.start()
    try:
        page, errors = _console(browser, site)

        # 一炮多响: 1号位 and 2号位 both win on 3号位's 4s (guangdong pays both)
        taps = Taps(page)
        _open(page, taps)
        taps("#fe-won-0")
        assert page.locator("#fe-also-1").count() == 0  # (a self-drawn win has one winner)
        taps("#fe-how-2")
        taps.tiles(["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "1p", "1p"])
        taps.tiles(["2s", "3s", "4s"])
        taps("#fe-also-1")
        taps.tiles(["4p", "5p", "6p", "7p", "8p", "9p", "1s", "1s", "1s", "3p", "3p"])
        taps.tiles(["2s", "3s", "4s"])
        body, answer = _finish(page, taps)
        assert [(w["seat"], w["tile"], w["from"]) for w in body["winners"]] == [
            (0, "4s", 2),
            (1, "4s", 2),
        ]
        _as_cli(site, body, answer)
        assert {ln["to"] for ln in answer["settlement"]["lines"]} == {0, 1}

        # 海底捞月: a self-drawn win on the last tile (guangdong reads it; no 天胡 here)
        _next_hand(page)
        taps = Taps(page)
        _open(page, taps)
        taps("#fe-won-0")
        assert page.locator("#fe-flag-tian, #fe-kong_replacement").count() == 1  # 杠上花
        taps.tiles(["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "1p", "1p"])
        taps.tiles(["2s", "3s", "4s"])
        taps("#fe-flag-last_tile")
        body, answer = _finish(page, taps)
        assert body["winners"][0]["flags"] == ["last_tile"]
        _as_cli(site, body, answer)
        assert "海底捞月" in answer["settlement"]["lines"][0]["reason"]
        assert errors == []
    finally:
        site.halt()
