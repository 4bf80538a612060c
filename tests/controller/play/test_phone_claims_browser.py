"""Four phones in Chromium (360×780) play hands on a table without readers (xingguo) over
a real Mosquitto: the dealer's phone rolls and enters the 精, the winner claims a
self-drawn win with the picker and the three others confirm it with their 精; a win on a
discard; a refused non-win shown in words; a dispute and a claim nobody answers in time
call staff (the console's banner, and every phone says so), who finish the hand as
today. Each settlement equals
``mjtable settle`` on the request the finish keeps."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from controller.cli.settle import settle_data
from engine.round.events import FinishedByStaff, Settled
from tests.controller.mosquitto import Mosquitto
from tests.controller.play.phones import call, join_all, open_phones, staff_token
from tests.controller.service_helpers import GUARD
from tests.controller.web.readerless_table import ReaderlessTable
from tests.controller.web.test_browser import (
    _shot,
    browser,  # noqa: F401 (a fixture)
)
from tests.controller.web.test_staff_console import _log_in

WAIT = GUARD * 1000  # ms: a hang guard for each wait on the page


def _tap_hand(page: Any, tiles: list[str]) -> None:
    """The winner's hand on the finish entry's picker (the console's, for its own seat)."""
    for k in tiles:
        page.click(f"#fe-picker button[data-kind='{k}']")
    page.wait_for_selector(f".fe-hand[data-count='{len(tiles)}']", timeout=WAIT)


def _settled(keeper: Any, hands: int) -> None:
    finished = [e for e in keeper.log if isinstance(e, FinishedByStaff)]
    settled = [e for e in keeper.log if isinstance(e, Settled)]
    assert finished and settled
    assert settle_data(finished[-1].request)["lines"] == settled[-1].settlement["lines"]


def _rolled_and_flipped(pages: list[Any], base: str, tokens: list[str]) -> dict[str, Any]:
    """The dealer's phone rolls (the next hand) and taps the 精 (5s)."""
    me = call(f"{base}/api/v1/play/me", token=tokens[0]).body
    dealer = pages[me["dealer"]]
    if me["dice_due"]:
        assert dealer.locator("#flip-picker").count() == 0  # (the 精 comes after the roll)
        dealer.click("#roll", timeout=WAIT)
        dealer.wait_for_selector("#flip-picker", timeout=WAIT)
    dealer.click("#flip-picker button[data-kind='5s']", timeout=WAIT)
    for p in pages:
        try:
            p.wait_for_selector("#jing:has-text('正精')", timeout=WAIT)
        except Exception as e:  # the tap's answer on the dealer's phone says why
            said = dealer.locator("#dealer-error").all_inner_texts()
            raise AssertionError(f"no 精 shown; the dealer's phone says {said}") from e
    return dict(call(f"{base}/api/v1/play/me", token=tokens[0]).body)


def _claim_win(page: Any, source: str, tiles: list[str]) -> None:
    page.click("#claim-entry [id^='fe-won-']", timeout=WAIT)  # 胡
    page.click(f"#fe-how-{source}", timeout=WAIT)
    _tap_hand(page, tiles)
    page.click("#fe-go")


def _confirm(page: Any, zheng: int, fu: int) -> None:
    page.wait_for_selector("#confirm", timeout=WAIT)
    page.select_option("#my-zheng", str(zheng))
    page.select_option("#my-fu", str(fu))
    page.click("#confirm")


WIN = [f"{d}{s}" for d, s in zip("123456789234", "mmmmmmmmmppp", strict=True)] + ["9p", "9p"]


@pytest.mark.timeout(600)
def test_four_phones_claim_confirm_dispute_and_time_out(
    browser: Any,  # noqa: F811
    mosquitto: Mosquitto,
    tmp_path: Path,
) -> None:
    site = ReaderlessTable(mosquitto, tmp_path)
    tracker = site.config.tracker.model_copy(update={"claim_answer_time": 3.0})
    site.config = site.config.model_copy(update={"tracker": tracker})
    site.start()
    try:
        base = f"http://127.0.0.1:{site.port}"
        keeper = site.run.keeper
        tokens = join_all(base)
        contexts, pages, errors = open_phones(browser, base, tokens)

        # hand 1: a self-drawn win by 1号位, the three others confirm with their 精
        _rolled_and_flipped(pages, base, tokens)
        _claim_win(pages[0], "self", WIN)
        pages[1].wait_for_selector("#claim-title:has-text('1号位申报胡牌')", timeout=WAIT)
        _shot(pages[1], tmp_path, "play-confirm")
        for seat, (z, f) in ((1, (1, 0)), (2, (0, 2)), (3, (0, 0))):
            _confirm(pages[seat], z, f)
        for p in pages:
            p.wait_for_selector("#settled", timeout=WAIT)
        _shot(pages[0], tmp_path, "play-settled")
        _settled(keeper, 1)

        # hand 2: a non-win refused in words, then a win on 4号位's discard
        _rolled_and_flipped(pages, base, tokens)
        bad = [*WIN[:-1], "1s"]
        _claim_win(pages[1], "self", bad)
        pages[1].wait_for_selector("#fe-error:has-text('胡牌不成立')", timeout=WAIT)
        _shot(pages[1], tmp_path, "play-refused")
        pages[1].click("#fe-cancel")
        _claim_win(pages[1], "3", WIN)
        for seat in (0, 2, 3):
            _confirm(pages[seat], 0, 0)
        pages[1].wait_for_selector("#settled", timeout=WAIT)
        _settled(keeper, 2)

        # hand 3: 2号位 disputes a claim: staff are called, and finish it as today
        console = browser.new_page(viewport={"width": 1024, "height": 900})
        _log_in(console, base)
        _rolled_and_flipped(pages, base, tokens)
        _claim_win(pages[2], "self", WIN)
        pages[1].click("#dispute", timeout=WAIT)
        console.wait_for_selector("#stuck-banner:has-text('2号位有异议')", timeout=WAIT)
        _shot(console, tmp_path, "play-dispute-console")
        for p in pages:
            p.wait_for_selector("#claim-disputed", timeout=WAIT)
            p.wait_for_selector("#staff-called:has-text('2号位有异议')", timeout=WAIT)
        console.wait_for_selector("#staff-acts:has-text('申报胡牌')", timeout=WAIT)
        console.wait_for_selector("#staff-acts:has-text('有异议')", timeout=WAIT)
        staff = {"Authorization": f"Bearer {staff_token(base)}"}
        look = call(f"{base}/api/v1/staff/hands/current", headers=staff).body
        assert [a["type"] for a in look["acts"]][-2:] == ["claim_made", "claim_answered"]
        done = call(
            f"{base}/api/v1/staff/hands/current/finish",
            {
                "hand_id": look["hand_id"],
                "seen": look["seen"],
                "reason": "2号位有异议：核对后结束",
                "winners": [{"seat": 2, "hand": "".join(WIN), "tile": "9p", "from": "self"}],
                "seats": [{"seat": s, "partial": True, "hand": ""} for s in (0, 1, 3)],
            },
            headers=staff,
        )
        assert done.status == 200, done.body
        console.wait_for_selector("#stuck-banner", state="hidden", timeout=WAIT)
        for p in pages:
            p.wait_for_selector("#settled", timeout=WAIT)
            assert p.locator("#staff-called").count() == 0
        _settled(keeper, 3)

        # hand 4: nobody answers within the owner's time: staff are called
        me = _rolled_and_flipped(pages, base, tokens)
        _claim_win(pages[me["dealer"]], "self", WIN)
        console.wait_for_selector("#stuck-banner:has-text('申报无人确认')", timeout=WAIT)
        for p in pages:  # every phone says staff are called, in words
            p.wait_for_selector("#staff-called:has-text('申报无人确认')", timeout=WAIT)
        _shot(pages[1], tmp_path, "play-timeout")
        assert errors == []
        for c in contexts:
            c.close()
    finally:
        site.halt()
