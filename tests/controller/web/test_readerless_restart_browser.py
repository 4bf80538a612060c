"""A table without readers restarted in the middle of a hand, watched on the staff console
in Debian's Chromium (the service over a real Mosquitto, ``readerless_table``): within 5 s
of the restarted service being ready the console shows one card that says the table
resumed hand 1 and waits for its result (「已恢复第1局，等待结果录入」), the dealer card and
the display agreeing; staff then enter the result as ever. A restart before the dice
holds nothing: the console asks for the dice as before."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.controller.mosquitto import Mosquitto
from tests.controller.service_helpers import GUARD
from tests.controller.web.readerless_table import ReaderlessTable
from tests.controller.web.test_browser import browser  # noqa: F401 (a fixture)
from tests.controller.web.test_staff_api import PASSWORD

WAIT = GUARD * 1000  # ms: a hang guard for a locator's wait, never an expectation
WITHIN = 5.0  # s from the restarted service being ready to the card on the open console
RESUMED = "已恢复第1局，等待结果录入"


def _log_in(page: Any, url: str) -> None:
    page.goto(f"{url}/dealer")
    page.locator("summary", has_text="工作人员登录").click()
    page.get_by_label("用户名").fill("ann")
    page.get_by_label("密码").fill(PASSWORD)
    page.get_by_role("button", name="工作人员登录").click()
    expect(page.locator("#task-title")).to_have_text("等待掷骰子", timeout=WAIT)


@pytest.mark.timeout(600)
def test_a_readerless_hand_resumed_mid_hand_says_so_as_one_card_within_5_s(
    browser: Any,  # noqa: F811
    mosquitto: Mosquitto,
    tmp_path: Path,
) -> None:
    table = ReaderlessTable(mosquitto, tmp_path)
    table.start(fresh=True)
    page = browser.new_page(viewport={"width": 390, "height": 844})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        _log_in(page, table.url)
        roll = page.get_by_role("button", name="掷骰子", exact=True)
        # restarted before the dice: nothing to hold, the dice asked for as before
        table.halt()
        table.start(fresh=False)
        expect(page.locator("#task-title")).to_have_text("等待掷骰子", timeout=WAIT)
        assert table.run.keeper.waiting is None
        roll.click(timeout=WAIT)
        expect(page.locator("#task-hint")).to_contain_text("第二次掷骰", timeout=WAIT)
        roll.click(timeout=WAIT)
        expect(page.locator("#task-title")).to_have_text("对局中：打完后录入结果", timeout=WAIT)
        expect(page.locator("#stuck-banner")).to_be_hidden()

        table.halt()
        table.start(fresh=False)
        ready = time.monotonic()
        card = page.locator("#stuck-banner")
        expect(card.locator(".why")).to_have_text(RESUMED, timeout=WAIT)
        took = time.monotonic() - ready
        assert took < WITHIN, f"the card came {took:.1f} s after the service was ready"
        said = card.inner_text()
        assert "手动结束本局" in said and not re.search("[A-Za-z]", said), said
        expect(page.locator("#alerts .alert")).to_have_count(0)  # one card, nothing beside
        expect(page.locator("#instruction")).to_contain_text("等待工作人员", timeout=WAIT)
        expect(page.locator("#task-title")).to_have_text("等待工作人员：手动结束或作废本局")
        display = browser.new_page(viewport={"width": 1024, "height": 1366})
        display.on("pageerror", lambda e: errors.append(str(e)))
        display.goto(f"{table.url}/display")
        expect(display.locator("#phase")).to_have_text(f"等待工作人员：{RESUMED}", timeout=WAIT)

        # the result entered as ever: the card goes with the hand
        page.get_by_role("button", name="作废本局", exact=True).click(timeout=WAIT)
        page.locator("#void-reason").fill("重启后牌已打乱")
        page.get_by_role("button", name="确认作废", exact=True).click(timeout=WAIT)
        expect(page.locator("#task-title")).to_have_text("本局已作废", timeout=WAIT)
        expect(card).to_be_hidden(timeout=WAIT)
        assert errors == []
    finally:
        table.halt()
