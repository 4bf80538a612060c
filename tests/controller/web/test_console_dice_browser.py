"""The console's dice button on a table without readers, in Debian's Chromium: the service
(over a real Mosquitto, its web app on a local port) starts a hand that waits for the
dealer's roll; staff tap 掷骰子 and the roll happens — the request reaches
POST /api/v1/staff/dice, the hand stores its roll, and the dealer card shows the dice."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.controller.mosquitto import Mosquitto
from tests.controller.service_helpers import GUARD
from tests.controller.web.readerless_table import ReaderlessTable
from tests.controller.web.test_browser import browser  # noqa: F401 (a fixture)
from tests.controller.web.test_staff_console import _log_in


@pytest.mark.timeout(240)
def test_the_consoles_dice_button_rolls_the_dice(
    browser: Any,  # noqa: F811
    mosquitto: Mosquitto,
    tmp_path: Path,
) -> None:
    site = ReaderlessTable(mosquitto, tmp_path)
    site.start(fresh=True)
    try:
        keeper = site.run.keeper
        assert keeper.state is not None and not keeper.state.dice  # waiting for the roll
        page = browser.new_page(viewport={"width": 390, "height": 844})  # a phone
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        _log_in(page, site.url)
        # one element per id: the button is not the dealer card's dice faces
        twice = "ns => ns.length - new Set(ns.map((n) => n.id)).size"
        assert page.eval_on_selector_all("[id]", twice) == 0
        with page.expect_response(
            lambda r: r.url.endswith("/api/v1/staff/dice") and r.request.method == "POST"
        ) as pressed:
            page.get_by_role("button", name="掷骰子", exact=True).click(timeout=GUARD * 1000)
        assert pressed.value.status == 200, pressed.value.text()
        page.wait_for_selector("#roll-dice-error.ok")  # 已完成 beside the button
        assert keeper.state is not None and keeper.state.dice  # the hand stored its roll
        page.wait_for_selector("#dice svg.die")  # the dealer card shows it
        assert errors == []
    finally:
        site.halt()
