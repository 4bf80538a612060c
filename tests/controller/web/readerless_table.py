"""The service of a table without readers (xingguo, the virtual table, a real Mosquitto,
its web app on a local port, the staff account ``ann``), run in a thread: the browser
tests' table. ``start`` again on the same data and port is a restart (the session and
its open hand resume from the store). ``readers=None``: the virtual table's readers (a
test may unplug one); ``between_hands``: how long the virtual players look at a settled
hand before the table collects its tiles; ``ready_when`` and ``after``: what the service's
thread waits for before the test goes on, and after the service stopped."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from dataclasses import replace
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
    """A table without readers on ``tmp_path``'s data; ``config`` may be changed before
    ``start``."""

    def __init__(
        self,
        mosquitto: Mosquitto,
        tmp_path: Path,
        ruleset: str = "xingguo",
        *,
        readers: str | None = "none",
        seed: int = 5,
        parlour: str | None = None,
        between_hands: float = GUARD,
        **tracker: Any,
    ) -> None:
        self.port = free_local_port()
        where = {} if parlour is None else {"parlour": parlour}
        plain = config_for(data_dir(tmp_path), ruleset, mosquitto.url, **where)
        if readers is not None:
            hardware = plain.hardware.model_validate({"virtual": True, "readers": readers})
            plain = plain.model_copy(update={"hardware": hardware})
        self.config = with_web(plain, self.port, **tracker)
        self.seed, self.between_hands = seed, between_hands
        self.ready_when: Callable[[Any], Awaitable[object]] = lambda run: until(
            lambda: run.keeper.in_progress, "a hand to be in progress"
        )
        self.after: Callable[[Any], Awaitable[object]] | None = None
        self.run: Any = None
        self.thread: ServiceThread | None = None
        self.ready = threading.Event()  # a hand is in progress; staff can log in
        self.stop: Callable[[], object] = lambda: None  # the table stops (once it runs)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def launch(self, *, fresh: bool = True) -> None:
        """Start the service's thread (``fresh``: a new session, the staff account made;
        else the open session and its hand resume); ``wait_ready`` waits for it."""
        self.ready = ready = threading.Event()

        async def main() -> None:
            played = options(self.seed, None, between_hands=self.between_hands)
            opts = replace(played, fresh_session=fresh)
            async with running(self.config, opts) as run:
                self.run = run
                if fresh:
                    OwnerAccounts(run.store).add("ann", hash_password(PASSWORD), "staff", ("t1",))
                stop, loop = asyncio.Event(), asyncio.get_running_loop()
                self.stop = lambda: loop.call_soon_threadsafe(stop.set)
                service = asyncio.create_task(run.service.run(stop))
                await self.ready_when(run)
                ready.set()
                await asyncio.wait_for(service, GUARD * 4)
                if self.after is not None:
                    await self.after(run)

        self.thread = ServiceThread(main, ready)
        self.thread.start()

    def wait_ready(self) -> None:
        assert self.thread is not None
        assert self.ready.wait(GUARD * 2) and self.thread.failed is None, self.thread.failed

    def start(self, *, fresh: bool = True) -> None:
        self.launch(fresh=fresh)
        self.wait_ready()

    def halt(self) -> None:
        self.stop()
        assert self.thread is not None and self.thread.finished.wait(GUARD * 2)
        assert self.thread.failed is None, self.thread.failed

    def totals(self) -> list[Any]:
        return list(self.run.keeper.session.totals)
