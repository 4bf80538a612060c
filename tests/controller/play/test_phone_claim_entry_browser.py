"""The winner's phone enters its claim with the console's finish entry (360×780, Chromium,
a table without readers, xingguo, a real Mosquitto): melds made of the last tiles tapped
and whom a pung came from, 杠上花, the flags the ruleset reads (天胡 for the dealer), 抢杠
(whose kong, whom its pung came from);
the others confirm, and each settlement equals ``mjtable settle`` on the request kept."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from controller.web.play_api import ClaimIn
from engine.round.events import FinishedByStaff, Settled
from tests.controller.mosquitto import Mosquitto
from tests.controller.play.phones import call, join_all, open_phones
from tests.controller.play.test_phone_claims_browser import (
    WAIT,
    WIN,
    _confirm,
    _rolled_and_flipped,
    _settled,
    _tap_hand,
)
from tests.controller.web.readerless_table import ReaderlessTable
from tests.controller.web.test_browser import (
    _shot,
    browser,  # noqa: F401 (a fixture)
)


def _tiles(text: str) -> list[str]:
    """The picker's kinds of "1m2m…", one per tap."""
    return [text[i : i + 2] for i in range(0, len(text), 2)]


def _pressed_across_a_refresh(page: Any, kind: str) -> None:
    """A tap held while the page looks again (every 1.5 s) still counts: the entry is
    neither rebuilt nor moved under the finger."""
    button = page.locator(f"#fe-picker button[data-kind='{kind}']")
    button.scroll_into_view_if_needed()
    pick = button.bounding_box()
    assert pick is not None
    page.mouse.move(pick["x"] + pick["width"] / 2, pick["y"] + pick["height"] / 2)
    page.evaluate("document.getElementById('seat').dataset.before = 'yes'")
    page.mouse.down()
    page.wait_for_selector("#seat:not([data-before])", timeout=WAIT)  # (a refresh came)
    page.mouse.up()
    page.wait_for_selector("#fe-hand-0[data-count='1']", timeout=WAIT)


def _confirmed_by_the_others(pages: list[Any], winner: int) -> None:
    for seat, page in enumerate(pages):
        if seat != winner:
            _confirm(page, 0, 0)
    for page in pages:
        page.wait_for_selector("#settled", timeout=WAIT)


@pytest.mark.timeout(600)
def test_a_phone_claims_melds_a_kong_flower_a_flag_and_a_robbed_kong_as_mjtable_settle(
    browser: Any,  # noqa: F811
    mosquitto: Mosquitto,
    tmp_path: Path,
) -> None:
    site = ReaderlessTable(mosquitto, tmp_path)
    site.start()
    try:
        base = site.url
        tokens = join_all(base)
        contexts, pages, errors = open_phones(browser, base, tokens)

        # 1号位: 杠上花 off its concealed kong of 2m, with a pung of 7s off 3号位
        me = _rolled_and_flipped(pages, base, tokens)
        phone = pages[0]
        phone.click("#fe-won-0", timeout=WAIT)
        # its own seat only; 抢杠 once a seat that dealt in is picked
        assert phone.locator("#fe-won-1, #fe-rob_kong").count() == 0
        phone.click("#fe-how-self")
        phone.click("#fe-kong_replacement")
        _pressed_across_a_refresh(phone, "2m")
        for _ in range(3):
            phone.click("#fe-picker button[data-kind='2m']")
        phone.wait_for_selector("#fe-hand-0[data-count='4']", timeout=WAIT)
        phone.click("#fe-meld-kong_concealed")
        for k in ("7s", "7s", "7s"):
            phone.click(f"#fe-picker button[data-kind='{k}']")
        phone.click("#fe-meld-pung")
        phone.click("#fe-meld-1-from-2")
        for k in ("3p", "4p", "5p", "6p", "7p", "8p", "7m", "7m"):
            phone.click(f"#fe-picker button[data-kind='{k}']")
        phone.wait_for_selector("#fe-hand-0:has-text('· 14')", timeout=WAIT)
        phone.locator("#fe-hand-0").scroll_into_view_if_needed()
        _shot(phone, tmp_path, "play-claim-entry")
        phone.click("#fe-go")
        _confirmed_by_the_others(pages, 0)
        _settled(site.run.keeper, 1)
        finished = [e for e in site.run.keeper.log if isinstance(e, FinishedByStaff)][-1]
        win = finished.request["win"]
        win = win[0] if isinstance(win, list) else win
        assert win["from"] == "kong_replacement" and win["tile"] == "7m"
        melds = finished.request["seats"][0]["melds"]
        assert {"type": "pung", "tiles": "7s7s7s", "from": 2} in [
            {k: m[k] for k in ("type", "tiles", "from") if k in m} for m in melds
        ]

        # the dealer: 天胡 (the flag offered to the dealer only)
        me = _rolled_and_flipped(pages, base, tokens)
        dealer = me["dealer"]
        other = pages[(dealer + 1) % 4]
        other.click(f"#fe-won-{(dealer + 1) % 4}", timeout=WAIT)
        other.click("#fe-how-self")
        assert other.locator("#fe-flag-tian").count() == 0
        other.click("#fe-cancel")
        phone = pages[dealer]
        phone.click(f"#fe-won-{dealer}", timeout=WAIT)
        phone.click("#fe-how-self")
        _tap_hand(phone, WIN)
        phone.click("#fe-flag-tian")
        phone.click("#fe-go")
        _confirmed_by_the_others(pages, dealer)
        _settled(site.run.keeper, 2)
        finished = [e for e in site.run.keeper.log if isinstance(e, FinishedByStaff)][-1]
        win = finished.request["win"]
        assert (win[0] if isinstance(win, list) else win)["tian"] is True

        # 2号位 robs 4号位's kong of 4p (the pung 4号位 claimed from 1号位): 抢杠
        _rolled_and_flipped(pages, base, tokens)
        phone = pages[1]
        phone.click("#fe-won-1", timeout=WAIT)
        phone.click("#fe-how-3")
        phone.click("#fe-rob_kong")
        phone.click("#fe-rob-from-0")
        _tap_hand(phone, [*_tiles("1m2m3m4m5m6m7m8m9m2p3p9p9p"), "4p"])
        phone.locator("#fe-go").scroll_into_view_if_needed()
        _shot(phone, tmp_path, "play-rob-kong")
        with phone.expect_request(
            lambda r: r.url.endswith("/api/v1/play/claim") and r.method == "POST"
        ) as sent:
            phone.click("#fe-go")
        claim = ClaimIn.model_validate_json(sent.value.post_data or "")
        assert claim.win is not None and claim.win.from_ == "rob_kong:3"
        assert claim.win.robbed_from == 0
        pages[3].wait_for_selector("#claim:has-text('抢4号位的杠')", timeout=WAIT)
        _confirmed_by_the_others(pages, 1)
        _settled(site.run.keeper, 3)
        finished = [e for e in site.run.keeper.log if isinstance(e, FinishedByStaff)][-1]
        win = finished.request["win"]
        assert (win[0] if isinstance(win, list) else win)["from"] == "rob_kong:3"
        assert finished.request["seats"][3]["melds"] == [
            {"type": "pung", "tiles": "4p4p4p", "from": 0}
        ]
        settled = [e for e in site.run.keeper.log if isinstance(e, Settled)][-1].settlement
        assert any(ln["code"] == "win.rob_kong" for ln in settled["lines"])
        assert errors == []
        for c in contexts:
            c.close()
    finally:
        site.halt()


@pytest.mark.timeout(600)
def test_a_second_winner_of_a_discard_claims_its_own_hand_where_several_are_paid(
    browser: Any,  # noqa: F811
    mosquitto: Mosquitto,
    tmp_path: Path,
) -> None:
    """guangdong pays every winner of a discard: while 1号位's claim on 3号位's 4s waits,
    2号位's phone (not the discarder's) offers 我也胡, opens the entry on that discard and
    sends its own hand, which joins the claim; every phone shows both hands, 2号位 has
    nothing to confirm, 3号位 confirms, the hand waits for 4号位 (who could have won on the
    4s too) until it taps 没胡, and settles paying both as ``mjtable settle`` settles the
    request kept."""
    site = ReaderlessTable(mosquitto, tmp_path)
    site.config = site.config.model_copy(
        update={"ruleset": site.config.ruleset.model_copy(update={"id": "guangdong"})}
    )
    site.start()
    try:
        base = site.url
        tokens = join_all(base)
        contexts, pages, errors = open_phones(browser, base, tokens)
        me = call(f"{base}/api/v1/play/me", token=tokens[0]).body
        if me["dice_due"]:
            pages[me["dealer"]].click("#roll", timeout=WAIT)
        first = pages[0]
        first.click("#fe-won-0", timeout=WAIT)
        first.click("#fe-how-2")
        _tap_hand(first, _tiles("1m2m3m4m5m6m7m8m9m1p1p2s3s4s"))
        first.click("#fe-go")

        second = pages[1]
        second.click("#claim-also", timeout=WAIT)
        for seat in (0, 2):  # the claimer, the discarder
            pages[seat].wait_for_selector("#claim-title", timeout=WAIT)
            assert pages[seat].locator("#claim-also").count() == 0
        second.wait_for_selector("#fe-how-2[aria-pressed='true']", timeout=WAIT)
        assert second.locator("#fe-how-self, #fe-won-1").count() == 0  # on that discard only
        _tap_hand(second, _tiles("4p5p6p7p8p9p1s1s1s3p3p2s3s4s"))
        with second.expect_request(
            lambda r: r.url.endswith("/api/v1/play/claim") and r.method == "POST"
        ) as sent:
            second.click("#fe-go")
        claim = ClaimIn.model_validate_json(sent.value.post_data or "")
        assert claim.seat == 1 and claim.result == "win" and claim.win is not None
        assert (claim.win.from_, claim.win.tile) == (2, "4s")
        assert claim.win.hand == "4p5p6p7p8p9p1s1s1s3p3p2s3s4s"
        for page in pages:  # joined: both hands on every phone
            page.wait_for_selector("#claimed-hand-1", timeout=WAIT)
        for seat in (0, 1, 2):  # (4号位 might win on it too)
            assert pages[seat].locator("#claim-also, #claim-pass").count() == 0
        assert second.locator("#confirm").count() == 0  # (its own hand, entered by itself)
        pages[2].click("#confirm", timeout=WAIT)
        # the discarder's 确认 does not settle it: 4号位 could have won on it too
        last = pages[3]
        last.wait_for_selector("#claim-also", timeout=WAIT)
        pages[2].wait_for_selector("#claim-undecided", timeout=WAIT)
        assert "4号位" in pages[2].inner_text("#claim-undecided")
        assert pages[2].locator("#settled").count() == 0
        last.locator("#claim-pass").scroll_into_view_if_needed()
        _shot(last, tmp_path, "play-pass")
        last.click("#claim-pass")
        for page in pages:
            page.wait_for_selector("#settled", timeout=WAIT)
        keeper = site.run.keeper
        _settled(keeper, 1)
        finished = [e for e in keeper.log if isinstance(e, FinishedByStaff)][-1]
        assert [w["seat"] for w in finished.winners] == [0, 1]
        settled = [e for e in keeper.log if isinstance(e, Settled)][-1].settlement
        assert {ln["to"] for ln in settled["lines"] if ln["code"].startswith("win")} == {0, 1}
        assert errors == []
        for c in contexts:
            c.close()
    finally:
        site.halt()
