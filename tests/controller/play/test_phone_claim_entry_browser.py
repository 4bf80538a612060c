"""The winner's phone enters its claim with the console's finish entry (360×780, Chromium,
a table without readers, xingguo, a real Mosquitto): melds made of the last tiles tapped
and whom a pung came from, 杠上花, and the flags the ruleset reads (天胡 for the dealer);
the others confirm, and each settlement equals ``mjtable settle`` on the request kept."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine.round.events import FinishedByStaff
from tests.controller.mosquitto import Mosquitto
from tests.controller.play.phones import PHONE, join_all
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


def _confirmed_by_the_others(pages: list[Any], winner: int) -> None:
    for seat, page in enumerate(pages):
        if seat != winner:
            _confirm(page, 0, 0)
    for page in pages:
        page.wait_for_selector("#settled", timeout=WAIT)


@pytest.mark.timeout(600)
def test_a_phone_claims_melds_a_kong_flower_and_a_flag_as_mjtable_settle(
    browser: Any,  # noqa: F811
    mosquitto: Mosquitto,
    tmp_path: Path,
) -> None:
    site = ReaderlessTable(mosquitto, tmp_path)
    site.start()
    try:
        base = site.url
        tokens = join_all(base)
        contexts = [browser.new_context(viewport=PHONE) for _ in range(4)]
        pages, errors = [], []
        for ctx, token in zip(contexts, tokens, strict=True):
            ctx.add_cookies([{"name": "mjtable_seat", "value": token, "url": base}])
            page = ctx.new_page()
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(f"{base}/t/t1")
            pages.append(page)

        # 1号位: 杠上花 off its concealed kong of 2m, with a pung of 7s off 3号位
        me = _rolled_and_flipped(pages, base, tokens)
        phone = pages[0]
        phone.click("#fe-won-0", timeout=WAIT)
        assert phone.locator("#fe-won-1, #fe-rob_kong").count() == 0  # its own seat, no 抢杠
        phone.click("#fe-how-self")
        phone.click("#fe-kong_replacement")
        _tap_hand(phone, ["2m", "2m", "2m", "2m"])
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
        assert errors == []
        for c in contexts:
            c.close()
    finally:
        site.halt()
