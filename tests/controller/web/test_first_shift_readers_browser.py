"""A first shift on the staff console of a table with readers, as a new member of staff
works it, in Debian's Chromium: the service on its virtual table (readers and board over
ptys, four bot players) over a real Mosquitto, its web app on a local port, the console
found by its buttons' words. The players wait for staff's roll before each deal, call
staff over when something is wrong, and look at a settled hand until they push its tiles
in (the table then builds the next hand's walls).

Staff roll the dice for each hand; hand 1 is a self-drawn win and hand 2 a win on a
discard, both read by the readers; in hand 3 the players call staff over: a penalty and
its undo, an adjustment, hand 1 voided from the recent hands, a 胡 that is no win refused
in words, then a 流局; in hand 4 the service restarts mid-hand (one card says the hand
waits for staff, within 5 s of the restarted service's start, on its own clock) and staff
void it. After each act the display's totals equal the console's; the page never shows a
field path, ``seats[``, a 0-based seat or an English sentence; the taps each act takes
are counted.
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from controller.sim.virtual_players import VirtualPlayers
from engine.round.state import Phase
from firmware_bridge.sim import Move, TableView
from tests.controller.mosquitto import Mosquitto
from tests.controller.service_helpers import until, wait_for
from tests.controller.web.readerless_table import ReaderlessTable
from tests.controller.web.test_browser import browser  # noqa: F401 (a fixture)
from tests.controller.web.test_first_shift_browser import (
    FORBIDDEN,
    WAIT,
    Shift,
    _in_first_screen,
    refused_in_words,
)
from tests.controller.web.test_staff_api import PASSWORD

# seed 7's walls and dice, as the bots play them: hand 1 1号位 draws its own winning tile,
# hand 2 2号位 wins on 3号位's discard
SEED = 7
CALLED_AFTER = 30  # the players call staff over once their hand has this many events
WITHIN = 5.0  # s from the restarted service's start to its waiting notice, its own clock
# what the one notice says for its hand, as the dealer page folds it (dealer.js)
FOLDED = {"xianggong", "tile_missing", "tile_misplaced", "duplicate_tag", "walls_changed"}
FOLDED |= {"refused", "false_win", "reader_silent"}
# three English words in a row: a sentence the Chinese page must not show
ENGLISH = re.compile(r"\b[A-Za-z]{2,}\b(?:[ ,']+\b[A-Za-z]{2,}\b){2,}")


class People:
    """The players at the table as a new member of staff meets them: they wait for staff's
    roll before the deal, sit still once they called staff over (``call``: the hand's
    number), and look at a settled hand until ``push_tiles_in``."""

    def __init__(self, table: ReaderlessTable) -> None:
        self.table = table
        self.call: int | None = None
        self.pushed: set[str] = set()  # the hands whose tiles the players pushed in
        self.players: VirtualPlayers | None = None
        self.calling = False  # their last hold was for staff, not for a roll

    def seat(self, run: Any) -> None:
        """At the table of ``run`` (a service started): their driver, their hold."""
        self.players = run.players
        assert self.players is not None
        self.players.hold = self.hold
        run.table.driver = self

    def hold(self, hand_no: int, events: int) -> bool:
        state = self.table.run.keeper.state
        if state is not None and state.phase in (Phase.BREAK_DICE, Phase.SECOND_DICE):
            self.calling = False
            return True  # staff roll
        self.calling = hand_no == self.call and events > CALLED_AFTER
        return self.calling

    async def next_moves(self, view: TableView) -> list[Move]:
        keeper = self.table.run.keeper
        looking = keeper.state is not None and not keeper.in_progress
        if looking and keeper.hand_id not in self.pushed:
            return []
        assert self.players is not None
        return list(await self.players.next_moves(view))

    def push_tiles_in(self) -> None:
        self.pushed.add(self.table.run.keeper.hand_id)

    @property
    def held(self) -> bool:
        return self.players is not None and self.players.held

    @property
    def called(self) -> bool:
        """Sitting still for staff they called over: not still sitting from staff's roll,
        which their flag says until their next look at the table (a slow one on a busy
        machine: staff then came over while the hand went on)."""
        return self.held and self.calling


class ReaderShift(Shift):
    """The console and the display of a table with readers, every tap counted."""

    def readable(self) -> None:
        """Neither the console nor the display shows a field path, a 0-based seat or an
        English sentence (English is on the toggle)."""
        super().readable()
        for page in (self.page, self.display):
            text = page.locator("body").inner_text()
            assert not ENGLISH.search(text), ENGLISH.search(text)
            assert not FORBIDDEN.search(text), FORBIDDEN.search(text)

    def roll(self) -> int:
        """Staff roll for the players, each roll the hand waits for before its deal, a tap
        each once the page shows which roll is due; the taps it took."""
        before = self.taps
        keeper = self.table.run.keeper
        while True:
            self.task("等待掷骰子")
            hint = self.page.locator("#task-hint")
            shown, rolled = hint.inner_text(), len(keeper.state.dice)
            self.tap(self.button("掷骰子"))
            wait_for(lambda: len(keeper.state.dice) > rolled, "the roll")  # noqa: B023
            expect(hint).not_to_have_text(shown, timeout=WAIT)  # the page shows it
            if keeper.state.phase not in (Phase.BREAK_DICE, Phase.SECOND_DICE):
                return self.taps - before

    def arrives(self) -> None:
        """Staff come over to the players who called them: the console shows the hand as it
        now stands (an act names the events it saw; one sent on an older picture is refused)."""
        seen = str(len(self.table.run.keeper.log))
        expect(self.page.locator("#staff-view")).to_have_attribute("data-seen", seen, timeout=WAIT)

    def hand_ends(self, no: int, result: str) -> None:
        """Hand ``no`` settled as ``result`` (the recent hands' words, no act of staff
        needed for them to follow); the display's totals equal the console's."""
        row = self.page.locator(f'.recent-hand[data-hand-no="{no}"]')
        expect(row).to_contain_text(f"第{no}局 · {result}", timeout=WAIT)
        self.agrees()


@pytest.mark.timeout(600)
@pytest.mark.parametrize("size", [(390, 844), (1024, 1366)], ids=["phone", "tablet"])
def test_a_first_shift_on_a_table_with_readers(
    browser: Any,  # noqa: F811
    mosquitto: Mosquitto,
    tmp_path: Path,
    size: tuple[int, int],
) -> None:
    with readers_table(mosquitto, tmp_path) as (table, people):
        _shift(ReaderShift(browser, table, size, tmp_path), people)


@contextlib.contextmanager
def readers_table(mosquitto: Mosquitto, tmp_path: Path) -> Iterator[tuple[ReaderlessTable, People]]:
    """The service on its virtual table with readers (seed ``SEED``), its players seated
    and waiting for staff's first roll; halted however the test ends."""
    table = ReaderlessTable(mosquitto, tmp_path, readers=None, seed=SEED, between_hands=0.0)
    people = People(table)

    async def first_dice(run: Any) -> None:
        people.seat(run)
        await until(lambda: people.held and run.keeper.in_progress, "the first hand's dice")

    table.ready_when = first_dice
    table.start(fresh=True)
    try:
        yield table, people
    finally:
        table.halt()


def _shift(s: ReaderShift, people: People) -> None:
    page, table = s.page, s.table
    s.display.goto(f"{table.url}/display")
    page.goto(f"{table.url}/dealer")
    s.tap(page.locator("summary", has_text="工作人员登录"))
    page.get_by_label("用户名").fill("ann")
    page.get_by_label("密码").fill(PASSWORD)
    s.tap(page.get_by_role("button", name="工作人员登录"))
    s.tap(page.locator("#staff-more > summary"))  # the rare acts and the recent hands

    # hand 1: staff roll (a tap a roll, at the top of the screen); the players play it to
    # a self-drawn win, the readers read it
    s.task("等待掷骰子")
    _in_first_screen(s, s.button("掷骰子"))
    taps = {"dice": s.roll()}
    s.hand_ends(1, "自摸")
    s.task("本局已结算")
    expect(page.locator("#task #staff-settlement")).to_contain_text("自摸", timeout=WAIT)
    # the next hand starts on the table's new walls: the players push the tiles in
    expect(page.locator("#task-hint")).to_contain_text("把牌推进牌桌", timeout=WAIT)
    expect(page.locator("#roll-dice")).to_be_hidden(timeout=WAIT)
    expect(page.locator("#instruction")).to_have_text("本局已结束，等待下一局", timeout=WAIT)
    people.push_tiles_in()

    # hand 2: a win on a discard, read by the readers
    taps["dice"] = max(taps["dice"], s.roll())
    s.hand_ends(2, "胡牌")
    people.push_tiles_in()

    # hand 3: the players call staff over mid-hand
    people.call = 3
    taps["dice"] = max(taps["dice"], s.roll())
    wait_for(lambda: people.called, "the players to call staff over")
    s.task("对局中：无需操作")
    s.arrives()
    s.agrees()
    taps |= _rare_acts(s)
    taps["refused"] = _refused(s)
    before = s.taps
    s.tap(page.locator("#fe-exhausted"))
    s.tap(page.locator("#fe-go"))
    s.task("本局已结算")  # a 流局, not 本局已作废
    taps["draw"] = s.taps - before
    assert taps["draw"] <= 3, taps  # with the tap that opened the entry (in _refused)
    s.hand_ends(3, "流局")
    summary = s.display.locator("#settlement .settle-summary")
    expect(summary).to_have_text("流局 · 工作人员录入", timeout=WAIT)
    people.push_tiles_in()

    # hand 4: the service restarts mid-hand; one card says the hand waits for staff
    people.call = 4
    taps["dice"] = max(taps["dice"], s.roll())
    wait_for(lambda: people.called, "hand 4 under way")
    s.agrees()
    taps["void"] = _restart_and_void(s, people)
    assert taps["dice"] <= 2, taps  # a roll a tap: xingguo rolls at most twice to deal
    print(f"{s.tag}: taps {taps}, all {s.taps}")


def _rare_acts(s: ReaderShift) -> dict[str, int]:
    """A penalty, undone; an adjustment; hand 1 voided from the recent hands."""
    page, taps = s.page, {}
    # 相公: xingguo prices none, and the console says so before anyone tries
    page.locator("#pen-kind").select_option(label="相公")
    expect(page.locator("#pen-form")).to_contain_text("请老板先", timeout=WAIT)
    expect(page.locator("#pen-go")).to_be_disabled(timeout=WAIT)
    page.locator("#pen-kind").select_option(label="诈胡")
    before = s.taps
    page.locator("#pen-seat").select_option(label="3号位")
    s.taps += 1
    page.locator("#pen-reason").fill("没胡就喊胡")
    s.tap(page.locator("#pen-go"))
    expect(page.locator('#staff-acts [data-act="penalty_applied"]')).to_have_count(1, timeout=WAIT)
    taps["penalty"] = s.taps - before
    assert taps["penalty"] <= 2, taps  # the seat, 执行 (and the reason)
    s.agrees()
    before = s.taps
    page.locator("#undo-reason").fill("罚错了座位")
    s.tap(s.button("撤销最后一步"))
    expect(page.locator('#staff-acts [data-act="staff_undone"]')).to_have_count(1, timeout=WAIT)
    taps["undo"] = s.taps - before
    assert taps["undo"] == 1, taps
    s.agrees()
    before = s.taps
    page.locator("#adj-from").select_option(label="1号位")
    page.locator("#adj-to").select_option(label="2号位")
    s.taps += 2
    page.locator("#adj-points").fill("5")
    page.locator("#adj-reason").fill("上一局少算5分")
    s.tap(page.locator("#adj-go"))
    expect(page.locator('#staff-acts [data-act="adjusted"]')).to_have_count(1, timeout=WAIT)
    taps["adjust"] = s.taps - before
    assert taps["adjust"] <= 3, taps
    s.agrees()
    first = page.locator('.recent-hand[data-hand-no="1"]')
    before = s.taps
    first.get_by_placeholder("原因（必填）").fill("骰子掉地上了，重打")
    s.tap(first.get_by_role("button", name="作废"))
    expect(first).to_contain_text("第3局作废", timeout=WAIT)
    taps["void_earlier"] = s.taps - before
    assert taps["void_earlier"] <= 3, taps  # and the reason
    s.agrees()
    return taps


def _refused(s: ReaderShift) -> int:
    """2号位 calls 胡 on 1号位's discard with no winning hand: staff enter it, and the
    table refuses it in words; nothing is done. The taps it took."""
    page = s.page
    before = s.taps
    s.tap(s.button("手动结束本局"))
    s.tap(page.locator("#fe-won-1"))
    s.tap(page.locator("#fe-how-0"))
    refused_in_words(s, "对局中：无需操作")
    return s.taps - before


def _restart_and_void(s: ReaderShift, people: People) -> int:
    """The service stopped and started again mid-hand on the same store; the virtual
    table's walls are new, so the hand waits for staff: one card, within ``WITHIN`` s on
    the service's own clock; staff void it. The void's taps."""
    page, table = s.page, s.table
    took: list[float] = []

    async def noticed(run: Any) -> None:
        people.seat(run)
        started = time.monotonic()
        await until(lambda: run.keeper.waiting is not None, "the waiting notice")
        took.append(time.monotonic() - started)

    table.halt()
    table.ready_when = noticed
    table.start(fresh=False)
    assert took[0] < WITHIN, f"the notice came {took[0]:.1f} s after the restart"
    s.task("等待工作人员：手动结束或作废本局")
    expect(page.locator("#stuck-banner .why")).to_contain_text("牌墙已换", timeout=WAIT)
    expect(page.locator("#instruction")).to_contain_text("等待工作人员", timeout=WAIT)
    # the hand's discrepancy alerts are folded into the one notice (an earlier hand's, from
    # a busy machine's silent reader, say, may stay listed as what it was)
    cards = page.locator(f'#alerts .alert[data-hand="{table.run.keeper.hand_id}"]')
    kinds = cards.evaluate_all("ns => ns.map((n) => n.dataset.kind)")
    assert not set(kinds) & FOLDED, kinds
    s.agrees()
    s.arrives()
    before = s.taps
    s.tap(s.button("作废本局"))
    page.locator("#void-reason").fill("重启后牌已打乱")
    s.tap(s.button("确认作废"))
    # voided; the table rebuilt its walls while the service was down: the next hand starts
    # on them at once and waits for its dice
    expect(page.locator('.recent-hand[data-hand-no="4"]')).to_contain_text("作废", timeout=WAIT)
    taps = s.taps - before
    assert taps <= 3, taps  # and the reason
    s.task("等待掷骰子")
    expect(page.locator("#stuck-banner")).to_be_hidden(timeout=WAIT)  # gone with the hand
    s.agrees()
    return taps
