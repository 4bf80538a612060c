"""The console's dice button on a table without readers, in Debian's Chromium: the service
(over a real Mosquitto, its web app on a local port) starts a hand that waits for the
dealer's roll; staff tap 掷骰子（下一局） and the roll happens — the request reaches
POST /api/v1/staff/dice, the hand stores its roll, and the dealer card shows the dice."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from controller.process.local_ports import free_local_port
from controller.runtime import running
from controller.store.owners import OwnerAccounts
from controller.web.passwords import hash_password
from tests.controller.mosquitto import Mosquitto
from tests.controller.service_helpers import (
    GUARD,
    ServiceThread,
    config_for,
    data_dir,
    options,
    until,
    with_web,
)
from tests.controller.web.test_browser import browser  # noqa: F401 (a fixture)
from tests.controller.web.test_staff_api import PASSWORD
from tests.controller.web.test_staff_console import _log_in


class ReaderlessTable:
    """The service of a table without readers, run in a thread until ``stop``."""

    def __init__(self, mosquitto: Mosquitto, tmp_path: Path) -> None:
        self.port = free_local_port()
        plain = config_for(data_dir(tmp_path), "xingguo", mosquitto.url)
        hardware = plain.hardware.model_validate({"virtual": True, "readers": "none"})
        self.config = with_web(plain.model_copy(update={"hardware": hardware}), self.port)
        self.run: Any = None
        self.ready = threading.Event()  # a hand waits for the break roll; staff can log in
        self.stop: Callable[[], object] = lambda: None  # the table stops (once it runs)
        self.thread = ServiceThread(self._main, self.ready)

    async def _main(self) -> None:
        async with running(self.config, options(5, None, between_hands=GUARD)) as run:
            self.run = run
            OwnerAccounts(run.store).add("ann", hash_password(PASSWORD), "staff", ("t1",))
            stop, loop = asyncio.Event(), asyncio.get_running_loop()
            self.stop = lambda: loop.call_soon_threadsafe(stop.set)
            service = asyncio.create_task(run.service.run(stop))
            await until(lambda: run.keeper.in_progress, "the first hand to start")
            self.ready.set()
            await asyncio.wait_for(service, GUARD * 2)


@pytest.mark.timeout(240)
def test_the_consoles_dice_button_rolls_the_dice(
    browser: Any,  # noqa: F811
    mosquitto: Mosquitto,
    tmp_path: Path,
) -> None:
    site = ReaderlessTable(mosquitto, tmp_path)
    site.thread.start()
    try:
        assert site.ready.wait(GUARD * 2) and site.thread.failed is None, site.thread.failed
        keeper = site.run.keeper
        assert keeper.state is not None and not keeper.state.dice  # waiting for the roll
        page = browser.new_page(viewport={"width": 390, "height": 844})  # a phone
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        _log_in(page, f"http://127.0.0.1:{site.port}")
        # one element per id: the button is not the dealer card's dice faces
        twice = "ns => ns.length - new Set(ns.map((n) => n.id)).size"
        assert page.eval_on_selector_all("[id]", twice) == 0
        with page.expect_response(
            lambda r: r.url.endswith("/api/v1/staff/dice") and r.request.method == "POST"
        ) as pressed:
            page.click("#staff button:has-text('掷骰子（下一局）')", timeout=GUARD * 1000)
        assert pressed.value.status == 200, pressed.value.text()
        page.wait_for_selector("#roll-dice-error.ok")  # 已完成 beside the button
        assert keeper.state is not None and keeper.state.dice  # the hand stored its roll
        page.wait_for_selector("#dice svg.die")  # the dealer card shows it
        assert errors == []
    finally:
        site.stop()
        assert site.thread.finished.wait(GUARD * 2)
    assert site.thread.failed is None, site.thread.failed
