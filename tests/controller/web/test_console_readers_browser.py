"""The staff console beside a table with readers, in Debian's Chromium: the service on its
virtual table (readers, board, four bot players) over a real Mosquitto. What the table does
by itself the console follows without an act of staff: a hand the readers settled is in
the recent hands at once; settled, the card says the players push the tiles in for the
next hand (no dice button: the table starts it on its new walls); while the table
shuffles, it says so (no 掷骰子 that would be refused). A settlement staff entered says
工作人员录入 in the page's words, never the engine's English note."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.controller.mosquitto import Mosquitto
from tests.controller.service_helpers import GUARD, wait_for
from tests.controller.web.test_browser import browser  # noqa: F401 (a fixture)
from tests.controller.web.test_first_shift_browser import WAIT
from tests.controller.web.test_first_shift_readers_browser import ReaderShift, readers_table
from tests.controller.web.test_staff_console import _log_in


@pytest.mark.timeout(300)
def test_the_console_follows_what_a_table_with_readers_does_by_itself(
    browser: Any,  # noqa: F811
    mosquitto: Mosquitto,
    tmp_path: Path,
) -> None:
    with readers_table(mosquitto, tmp_path) as (table, people):
        s = ReaderShift(browser, table, (390, 844), tmp_path)
        page = s.page
        s.display.goto(f"{table.url}/display")
        _log_in(page, table.url)
        s.tap(page.locator("#staff-more > summary"))  # the recent hands open
        expect(page.locator("#recent-hands")).to_contain_text("本场还没有结束的牌局", timeout=WAIT)
        s.roll()
        # the readers read hand 1 to its end: no act of staff, and the console follows
        row = page.locator('.recent-hand[data-hand-no="1"]')
        expect(row).to_contain_text("第1局 · 自摸", timeout=WAIT)
        s.task("本局已结算")
        expect(page.locator("#task-hint")).to_contain_text("把牌推进牌桌", timeout=WAIT)
        expect(page.locator("#roll-dice")).to_be_hidden()
        s.agrees()

        people.push_tiles_in()
        people.call = 2
        s.roll()
        wait_for(lambda: people.called, "the players to call staff over")
        s.arrives()
        s.tap(s.button("手动结束本局"))
        s.tap(page.locator("#fe-exhausted"))
        s.tap(page.locator("#fe-go"))
        settled = page.locator("#task #staff-settlement")
        expect(settled).to_contain_text("工作人员录入", timeout=WAIT)
        assert not re.search(r"[A-Za-z]", settled.inner_text()), settled.inner_text()
        s.agrees()

        # the players push the tiles in; the table shuffles (slowly, as a real one does)
        run = table.run
        run.table.config = replace(run.table.config, shuffle_time=GUARD)
        people.push_tiles_in()
        s.task("洗牌中：牌墙升起后掷骰子")
        expect(page.locator("#roll-dice")).to_be_hidden()
        s.readable()
