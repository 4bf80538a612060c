"""The service of a table without readers (xingguo, the virtual table, a real Mosquitto,
its web app on a local port, the staff account ``ann``), run in a thread: for the browser
tests of the finish entry and the players' phones."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

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
from tests.controller.web.test_staff_api import PASSWORD


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
