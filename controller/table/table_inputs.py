"""Acts of people that reach the live hand by another way than the tiles: one queue in.

The readers and the table board report through the bridge (``TableBridge.next_event``);
everything else a person does to the hand in progress is a ``TableInput`` put here, and
``TableService.act`` applies it on the table loop, one at a time, between the bridge's
events. Today that is the panel's GPIO dice button; acts by staff on the live hand (finish
it, void it) come in the same way, from the web API: whatever they become is submitted
through the ``HandKeeper``, so it is stored before it is published, like every move.

The queue is made before its producers (the panel, the web app) and its consumer (the
service), and is bounded: a stuck button or a flood of requests cannot grow it, and what
does not fit is refused (``put`` says so) rather than delaying the table loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import structlog

from controller.table.staff_requests import StaffItem

log = structlog.get_logger(__name__)

LIMIT = 64


@dataclass(frozen=True, slots=True)
class DicePress:
    """The panel's dice button: whoever is due rolls."""


@dataclass(frozen=True, slots=True)
class StaffInput:
    """An act of staff from the web API (``controller.table.staff_requests``), and where
    its sender waits for what the table made of it."""

    item: StaffItem
    answer: asyncio.Future[dict[str, Any]]

    def settle(self, work: Callable[[], dict[str, Any]]) -> None:
        """Run ``work`` and hand its answer (or its refusal) to the waiting sender. A sender
        that gave up (it was told nothing was done) gets nothing done."""
        if self.answer.done():
            log.info("staff act dropped: its sender gave up", item=repr(self.item))
            return
        try:
            result = work()
        except Exception as err:  # a refusal (StaffInputError …) or a failure: theirs to see
            if not self.answer.done():
                self.answer.set_exception(err)
            if not isinstance(err, ValueError | LookupError | PermissionError):
                raise
            return
        if not self.answer.done():
            self.answer.set_result(result)


TableInput = DicePress | StaffInput
"""Every kind of input."""


class TableInputs:
    """The bounded queue of ``TableInput`` for the table loop. Put from the event loop's
    thread (another thread: ``loop.call_soon_threadsafe(inputs.put, item)``)."""

    def __init__(self, limit: int = LIMIT) -> None:
        self._queue: asyncio.Queue[TableInput] = asyncio.Queue(limit)
        self._closed = False

    def put(self, item: TableInput) -> bool:
        """Queue ``item``; False (and logged) if the queue is full or the table stopped."""
        if self._closed:
            return False
        try:
            self._queue.put_nowait(item)
        except asyncio.QueueFull:
            log.warning("table input refused: the queue is full", input=repr(item))
            return False
        return True

    async def get(self) -> TableInput:
        return await self._queue.get()

    def pending(self) -> list[TableInput]:
        """Everything queued, taken out."""
        items = []
        while not self._queue.empty():
            items.append(self._queue.get_nowait())
        return items

    def close(self) -> None:
        """The table loop has stopped: whoever still waits on a staff act is told it was
        not done (``TimeoutError``, a 503 to try again), rather than waiting on a loop that
        will never answer until the web server cuts it off; later puts are refused."""
        self._closed = True
        for item in self.pending():
            if isinstance(item, StaffInput) and not item.answer.done():
                item.answer.set_exception(TimeoutError("the table stopped"))
