"""The dealer's phone on a table without readers: it rolls the dice (the table has no
button) and enters the turned-up 精 with one tap on its tile; the hand stores each act
with the phone that did it, and every phone shows the 正精/副精. Another seat's phone may
do neither."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine.round.events import FlipEntered
from tests.controller.play.phones import PHONE, call, join_all
from tests.controller.service_helpers import GUARD
from tests.controller.web.test_browser import (
    _shot,
    browser,  # noqa: F401 (a fixture)
)


@pytest.mark.timeout(300)
def test_the_dealers_phone_rolls_and_enters_the_flip_with_one_tap(
    browser: Any,  # noqa: F811
    table: Any,
    tmp_path: Path,
) -> None:
    base = f"http://127.0.0.1:{table.port}"
    tokens = join_all(base)
    keeper = table.run.keeper
    me = call(f"{base}/api/v1/play/me", token=tokens[0]).body
    dealer = me["dealer"]
    other = (dealer + 1) % 4
    act = {"hand_id": me["hand_id"], "seen": me["seen"]}
    refused = call(f"{base}/api/v1/play/flip", act | {"indicator": "5s"}, token=tokens[other])
    assert refused.status == 403 and f"{dealer + 1}号位" in refused.detail, refused.body
    assert call(f"{base}/api/v1/play/dice", act, token=tokens[other]).status == 403
    assert len(keeper.log) == me["seen"]  # nothing stored

    ctx = browser.new_context(viewport=PHONE)
    ctx.add_cookies([{"name": "mjtable_seat", "value": tokens[dealer], "url": base}])
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{base}/t/t1")
    page.click("#roll", timeout=GUARD * 1000)
    page.wait_for_selector("#roll", state="detached")  # rolled: no roll due
    assert keeper.state is not None and keeper.state.dice
    _shot(page, tmp_path, "play-flip")
    page.click("#flip-picker button[data-kind='5s']")
    page.wait_for_selector("#jing:has-text('正精')")
    entered = [e for e in keeper.log if isinstance(e, FlipEntered)]
    assert len(entered) == 1 and entered[0].indicator == "5s"
    assert entered[0].role == "player"
    sid = call(f"{base}/api/v1/play/me", token=tokens[dealer]).body["sid"]
    assert entered[0].by == f"seat{dealer}:guest:phone:{sid}"  # the seat, a guest, the phone
    seen = call(f"{base}/api/v1/play/me", token=tokens[other]).body
    assert seen["jing"] == {"zheng": "5s", "fu": "6s"}
    stale = call(f"{base}/api/v1/play/flip", act | {"indicator": "7s"}, token=tokens[dealer])
    assert stale.status == 409, stale.body
    assert errors == []
    ctx.close()
