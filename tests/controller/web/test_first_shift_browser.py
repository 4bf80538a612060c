"""A first shift on the staff console, as a new member of staff works it, in Debian's
Chromium at a phone's size and a tablet's: a table without readers (its service over a
real Mosquitto, its web app on a local port), the console found by its buttons' words.
Staff roll the dice, enter the 精 and a self-drawn win (by taps on the finish entry),
start the next hand, apply a penalty and undo it, adjust points, void an earlier hand
from the recent hands, restart the service mid-hand (one card says the hand resumed and
waits for its result) and void the hand it resumes; then a 胡 that is no win, refused in
words, put right into a win on a discard, that win corrected (it was self-drawn), and a
流局. After
each act the display's totals equal the console's; the page never shows a field path,
``seats[`` or a 0-based seat; the taps each task takes are counted.

Set MJTABLE_SCREENSHOTS=docs/screenshots to refresh the screenshots docs/staff.md shows.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.controller.mosquitto import Mosquitto
from tests.controller.service_helpers import (
    GUARD,
)
from tests.controller.web.readerless_table import ReaderlessTable
from tests.controller.web.test_browser import _shot, browser  # noqa: F401 (a fixture)
from tests.controller.web.test_staff_api import PASSWORD

WAIT = GUARD * 1000  # ms: a hang guard for a locator's wait, never an expectation
# the result the players agree on: seat 1 draws its own winning tile; 东 turned up
INDICATOR = "E"
WINNER_TAPS = ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "1p", "2p", "3p", "5p", "5p"]
# hand 3: 2号位 calls 胡 on 1号位's discard with no winning hand (refused), then the tiles
# as they lie: a win on 1号位's 9s
NOT_A_WIN = ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "1p", "3p", "5p", "7p", "9p"]
DISCARD_WIN = ["1s", "2s", "3s", "4s", "5s", "6s", "7s", "8s", "2p", "2p", "7p", "8p", "9p", "9s"]
# what a person must never read on the Chinese page: a field path, a 0-based seat, the id
FORBIDDEN = re.compile(r"seats\[|winners\[|\b(hand|reason|points|seat)\b:|0号位|xingguo")


class Shift:
    """The console page and the display beside it; every tap counted."""

    def __init__(
        self, chromium: Any, table: ReaderlessTable, size: tuple[int, int], tmp: Path
    ) -> None:
        width, height = size
        self.table, self.tmp, self.taps = table, tmp, 0
        self.page = chromium.new_page(viewport={"width": width, "height": height})
        self.display = chromium.new_page(viewport={"width": 1280, "height": 800})
        self.errors: list[str] = []
        for p in (self.page, self.display):
            p.on("pageerror", lambda e: self.errors.append(str(e)))
        self.tag = f"{width}x{height}"

    def tap(self, locator: Any) -> None:
        locator.click(timeout=WAIT)
        self.taps += 1

    def button(self, name: str) -> Any:
        return self.page.get_by_role("button", name=name, exact=True)

    def task(self, title: str) -> None:
        expect(self.page.locator("#task-title")).to_have_text(title, timeout=WAIT)

    def shot(self, name: str, at: str = "#task-title") -> None:
        """The screen as staff see it: the top of the page (the task), or ``at`` (a phone's
        each time; a tablet's once, for docs/staff.md)."""
        if self.tag != "390x844" and name != "shift-settled":
            return
        self.page.mouse.wheel(0, -100_000)
        self.page.locator(at).scroll_into_view_if_needed(timeout=WAIT)
        expect(self.page.locator(at)).to_be_in_viewport(timeout=WAIT)
        _shot(self.page, self.tmp, f"{name}-tablet" if self.tag != "390x844" else name)

    def agrees(self) -> None:
        """The console's seat rows and the display show the table's session totals."""
        want = [_fmt(t) for t in self.table.totals()]
        for seat, text in enumerate(want):
            row = self.page.locator(f'#staff-view [data-seat="{seat}"] .total')
            expect(row).to_have_text(text, timeout=WAIT)
            score = self.display.locator(f'[data-seat-score="{seat}"]')
            expect(score).to_have_text(text, timeout=WAIT)
        self.readable()

    def readable(self) -> None:
        text = self.page.locator("body").inner_text()
        assert not FORBIDDEN.search(text), FORBIDDEN.search(text)
        assert self.errors == [], self.errors


def _fmt(n: Any) -> str:
    value = float(n)
    if value == 0:
        return "0"
    shown = str(int(value)) if value.is_integer() else f"{value:.1f}"
    return f"+{shown}" if value > 0 else shown


@pytest.mark.timeout(600)
@pytest.mark.parametrize("size", [(390, 844), (1024, 1366)], ids=["phone", "tablet"])
def test_a_first_shift_on_the_console(
    browser: Any,  # noqa: F811
    mosquitto: Mosquitto,
    tmp_path: Path,
    size: tuple[int, int],
) -> None:
    table = ReaderlessTable(mosquitto, tmp_path)
    table.start(fresh=True)
    try:
        _shift(Shift(browser, table, size, tmp_path))
    finally:
        table.halt()


def _shift(s: Shift) -> None:
    page, table = s.page, s.table
    s.display.goto(f"{table.url}/display")
    page.goto(f"{table.url}/dealer")
    # the header names the rules as the parlour does
    expect(page.locator("#hand-title")).to_contain_text("兴国冲关麻将", timeout=WAIT)
    s.tap(page.locator("summary", has_text="工作人员登录"))
    page.get_by_label("用户名").fill("ann")
    page.get_by_label("密码").fill(PASSWORD)
    s.tap(page.get_by_role("button", name="工作人员登录"))

    # hand 1 waits for the dice: one tap, at the top of the screen
    s.task("等待掷骰子")
    _in_first_screen(s, s.button("掷骰子"))
    s.shot("shift-dice")
    before = s.taps
    s.tap(s.button("掷骰子"))  # the break
    expect(page.locator("#task-hint")).to_contain_text("第二次掷骰", timeout=WAIT)
    s.tap(s.button("掷骰子"))  # xingguo's second roll
    s.task("对局中：打完后录入结果")
    assert s.taps - before == 2
    s.agrees()

    # the 精 as turned up, as its own act; then the win the players agree on, by taps on
    # the finish entry: the winner, its 14 tiles (the last the winning one), 结算 — the
    # other seats hold no 精 (东 turned up: 正精 东, 副精 南), so nothing else is asked
    s.tap(s.button("手动结束本局"))
    page.locator("#fin-hand").focus()
    expect(page.locator("#picker")).to_be_in_viewport(timeout=WAIT)  # beside the field
    page.locator("#fin-indicator").fill(INDICATOR)
    s.tap(s.button("录入翻精"))
    expect(page.locator('#staff-acts [data-act="flip_entered"]')).to_have_count(1, timeout=WAIT)
    before = s.taps
    s.tap(page.locator("#fe-won-0"))
    for kind in WINNER_TAPS:
        s.tap(page.locator(f'#fe-picker [data-kind="{kind}"]'))
    s.tap(page.locator("#fe-go"))
    s.task("本局已结算")
    finish_taps = s.taps - before + 1  # and the 手动结束本局 that opened the entry
    assert finish_taps <= 22, finish_taps  # a 14-tile self-drawn win
    page.wait_for_selector("#finish-entry:not(:has(#fe-won-0))", state="attached")  # forgets
    settled = page.locator("#task #staff-settlement")
    expect(settled).to_contain_text("工作人员录入", timeout=WAIT)
    s.agrees()
    s.shot("shift-settled")
    _in_first_screen(s, page.locator("#task"), tall=False)  # the task fits one screen
    # the flip kept its own (empty) reason, not the finish's
    keeper = table.run.keeper
    flip = next(e for e in keeper.log if e.type == "flip_entered")
    assert flip.reason == ""

    # the next hand: its break roll, then its second
    before = s.taps
    s.tap(s.button("下一局（掷骰子）"))
    expect(page.locator("#task-hint")).to_contain_text("第二次掷骰", timeout=WAIT)
    s.tap(s.button("掷骰子"))
    s.task("对局中：打完后录入结果")
    assert s.taps - before == 2
    expect(page.get_by_text("已完成")).to_have_count(0, timeout=WAIT)  # no stale "done"
    s.agrees()

    # rare acts behind one menu: a penalty, undone; an adjustment
    more = page.locator("#staff-more > summary")
    s.tap(more)
    page.locator("#pen-seat").select_option(label="3号位")
    page.locator("#pen-reason").fill("13张牌就喊胡")
    s.tap(page.locator("#pen-go"))
    expect(page.locator('#staff-acts [data-act="penalty_applied"]')).to_have_count(1, timeout=WAIT)
    s.agrees()
    s.shot("shift-penalty")
    page.locator("#undo-reason").fill("罚错了座位")
    s.tap(s.button("撤销最后一步"))
    expect(page.locator('#staff-acts [data-act="staff_undone"]')).to_have_count(1, timeout=WAIT)
    s.agrees()
    assert page.locator("#pen-reason").input_value() == ""
    page.locator("#adj-from").select_option(label="1号位")
    page.locator("#adj-to").select_option(label="2号位")
    page.locator("#adj-points").fill("5")
    page.locator("#adj-reason").fill("上一局少算5分")
    s.tap(page.locator("#adj-go"))
    expect(page.locator('#staff-acts [data-act="adjusted"]')).to_have_count(1, timeout=WAIT)
    s.agrees()
    assert page.locator("#adj-reason").input_value() == ""

    # hand 1 voided from the recent hands, by its row: no id to look up
    first = page.locator('.recent-hand[data-hand-no="1"]')
    expect(first).to_contain_text("第1局", timeout=WAIT)
    before = s.taps
    first.get_by_placeholder("原因（必填）").fill("骰子掉地上了，重打")
    s.tap(first.get_by_role("button", name="作废"))
    expect(first).to_contain_text("第2局作废", timeout=WAIT)
    assert s.taps - before == 1
    s.agrees()
    s.shot("shift-recent-hands", at="#recent-form")

    # a restart mid-hand: the console comes back to the same hand and the same totals, one
    # card saying what the table resumed and what it waits for
    table.halt()
    table.start(fresh=False)
    s.task("等待工作人员：手动结束或作废本局")
    expect(page.locator("#stuck-banner .why")).to_have_text("已恢复第2局，等待结果录入")
    s.agrees()
    before = s.taps
    s.tap(s.button("作废本局"))
    page.locator("#void-reason").fill("重启后牌已打乱")
    s.tap(s.button("确认作废"))
    s.task("本局已作废")
    void_taps = s.taps - before
    assert void_taps <= 3
    s.agrees()
    expect(s.button("作废本局")).to_be_hidden()
    expect(page.locator('.recent-hand[data-hand-no="2"]')).to_contain_text("作废", timeout=WAIT)
    expect(page.locator("#stuck-banner")).to_be_hidden(timeout=WAIT)  # gone with the hand
    s.shot("shift-void")
    discard_taps, draw_taps = _discard_win_and_draw(s)
    page.get_by_role("button", name="English").click()
    expect(page.locator("#task-title")).to_have_text("Hand settled", timeout=WAIT)
    print(
        f"{s.tag}: self-drawn win {finish_taps} taps, win on a discard {discard_taps}, "
        f"流局 {draw_taps}, void {void_taps}, all {s.taps}"
    )


def _discard_win_and_draw(s: Shift) -> tuple[int, int]:
    """Hand 3: a 胡 that is no win, refused in words; the tiles put right, a win on a
    discard. Hand 4: a 流局. The taps each takes (the win's as a first try would take
    them: its opening taps and the tiles and 结算 of the try that settles)."""
    page = s.page
    s.tap(s.button("下一局（掷骰子）"))
    expect(page.locator("#task-hint")).to_contain_text("第二次掷骰", timeout=WAIT)
    s.tap(s.button("掷骰子"))
    s.task("对局中：打完后录入结果")
    s.agrees()
    before = s.taps
    s.tap(s.button("手动结束本局"))
    s.tap(page.locator("#fe-won-1"))
    s.tap(page.locator("#fe-how-0"))  # 1号位 dealt in
    s.tap(page.locator(f'#fe-picker [data-kind="{INDICATOR}"]'))  # the 精 as turned up
    opening = s.taps - before
    refused_in_words(s, "对局中：打完后录入结果")
    s.shot("shift-refused", at="#fe-error")
    s.tap(page.locator("#fe-clear"))  # the tiles as they lie
    before = s.taps
    for kind in DISCARD_WIN:
        s.tap(page.locator(f'#fe-picker [data-kind="{kind}"]'))
    s.tap(page.locator("#fe-go"))
    s.task("本局已结算")
    discard_taps = opening + s.taps - before
    assert discard_taps <= 24, discard_taps  # a win on a discard
    s.agrees()
    expect(s.display.locator("#settlement [data-entered='staff']")).to_contain_text(
        "工作人员录入", timeout=WAIT
    )
    _correct_the_entered_win(s)

    s.tap(s.button("下一局（掷骰子）"))
    expect(page.locator("#task-hint")).to_contain_text("第二次掷骰", timeout=WAIT)
    s.tap(s.button("掷骰子"))
    s.task("对局中：打完后录入结果")
    s.agrees()
    before = s.taps
    s.tap(s.button("手动结束本局"))
    s.tap(page.locator("#fe-exhausted"))
    if page.locator("#fe-indicator").count():  # the ruleset settles the 精 of a 流局
        s.tap(page.locator(f'#fe-picker [data-kind="{INDICATOR}"]'))
    s.tap(page.locator("#fe-go"))
    s.task("本局已结算")  # a 流局, not 本局已作废
    draw_taps = s.taps - before
    s.agrees()
    summary = s.display.locator("#settlement .settle-summary")
    expect(summary).to_have_text("流局 · 工作人员录入", timeout=WAIT)  # no 本局作废
    return discard_taps, draw_taps


def _correct_the_entered_win(s: Shift) -> None:
    """The win was entered wrong: 2号位 drew its 9s itself. Corrected before the next
    hand, in the finish entry prefilled with what was entered (on the phone from the task
    card, on the tablet from the hand's row in the recent hands): the way of winning, then
    settled again; the act listed, the displays equal to the console."""
    page, was = s.page, s.table.totals()
    before = s.taps
    if s.tag == "390x844":
        s.tap(page.locator("#open-finish"))
        expect(page.locator("#open-finish")).to_have_text("收起", timeout=WAIT)
    else:
        row = page.locator('.recent-hand[data-hand-no="3"]')
        s.tap(row.get_by_role("button", name="更正结果"))
    expect(page.locator("#fe-box h3")).to_have_text("更正录入的结果", timeout=WAIT)
    expect(page.locator("#fe-hand-1")).to_have_attribute("data-count", "14")  # as entered
    expect(page.locator("#fe-how-0")).to_have_attribute("aria-pressed", "true")
    s.shot("shift-correct", at="#fe-box")
    s.tap(page.locator("#fe-how-self"))
    page.locator("#fe-reason").fill("其实是自摸")
    s.tap(page.locator("#fe-go"))
    expect(page.locator('#staff-acts [data-act="result_corrected"]')).to_have_count(1, timeout=WAIT)
    assert s.taps - before <= 3, s.taps - before
    s.task("本局已结算")
    expect(page.locator("#finish-entry")).to_be_hidden(timeout=WAIT)
    act = page.locator('#staff-acts [data-act="result_corrected"]')
    expect(act).to_contain_text(
        "2号位 胡1号位打的九条 → 2号位 自摸九条（其实是自摸）", timeout=WAIT
    )
    assert s.table.totals() != was
    s.agrees()
    settled = page.locator("#task #staff-settlement")
    expect(settled).to_contain_text("自摸", timeout=WAIT)
    summary = s.display.locator("#settlement .settle-summary")
    expect(summary).to_have_text("南 · 2号位 胡 九条 · 自摸 · 工作人员录入", timeout=WAIT)
    if s.tag == "390x844":
        _shot(s.display, s.tmp, "display-settlement")


def _in_first_screen(s: Shift, locator: Any, *, tall: bool = True) -> None:
    """The element lies inside the first screen (the page at its top); a button at least
    44 px tall (a finger's tap)."""
    s.page.mouse.wheel(0, -100_000)
    box = locator.bounding_box()
    height = s.page.viewport_size["height"]
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= height, box
    assert not tall or box["height"] >= 44, box


def refused_in_words(s: Shift, task: str) -> None:
    """The entry opened on a 胡, ``NOT_A_WIN`` picked and sent: refused in words (a seat as
    N号位, Chinese only on the Chinese page), and nothing done (the task card still ``task``,
    the display equal to the console)."""
    page = s.page
    for kind in NOT_A_WIN:
        s.tap(page.locator(f'#fe-picker [data-kind="{kind}"]'))
    s.tap(page.locator("#fe-go"))
    said = page.locator("#fe-error")
    expect(said).to_contain_text("不是胡牌", timeout=WAIT)
    words = said.inner_text()
    assert re.search(r"[1-4]号位", words) and not FORBIDDEN.search(words), words
    assert not re.search(r"[A-Za-z]{3,}", words), words  # Chinese only on the Chinese page
    s.task(task)
    s.agrees()
