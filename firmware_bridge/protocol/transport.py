"""Asyncio shell around Link: opens a pyserial URL, pumps bytes and time, reconnects.

All protocol logic is in the sans-IO Link; this file only moves bytes and reads the clock.
Opening the URL and reopening it with backoff when the device disappears is shared with the
reader transports (`firmware_bridge.serial_port`). Messages sent while the device is away
wait in the Link and go out after the re-hello.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

from firmware_bridge.serial_port import DISCONNECTED, Connection, ReconnectingPort

from .link import Link, LinkState
from .messages import Message


class LinkTransport(ReconnectingPort):
    """Runs `link` over the serial device at `url` until close().

    Received messages go to `on_message` if given, else to an internal queue read with
    `recv()` or `async for msg in transport`.
    """

    def __init__(
        self,
        url: str,
        link: Link | None = None,
        *,
        baudrate: int = 115_200,
        on_message: Callable[[Message], None] | None = None,
        backoff_initial: float = 0.1,
        backoff_max: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
        rng: random.Random | None = None,
        serial_options: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(
            url,
            baudrate=baudrate,
            backoff_initial=backoff_initial,
            backoff_max=backoff_max,
            rng=rng,
            serial_options=serial_options,
        )
        self.link = link or Link()
        self._on_message = on_message
        self._clock = clock
        self._inbox: asyncio.Queue[Message] = asyncio.Queue()
        self._up = asyncio.Event()
        self._delivered = asyncio.Event()
        self._delivered.set()
        self.acked_by_sender = 0
        """While a received message is handed to ``on_message``: how many of ours the
        device had acknowledged when it sent it (``Link.receive``)."""

    # --- public API --------------------------------------------------------------------

    @property
    def state(self) -> str:
        """'disconnected' while the device is away, else the link state."""
        return self.link.state.value if self.connected else DISCONNECTED

    def send(self, msg: Message) -> int:
        """Queue a message (raises LinkQueueFull). Sent once the link is up, even if later.
        Returns its number: the device has it once ``acknowledged`` reaches it."""
        number = self.link.send(msg, self._clock())
        self._delivered.clear()
        self._wake.set()
        return number

    @property
    def acknowledged(self) -> int:
        """How many of the messages sent the device has acknowledged (``Link``)."""
        return self.link.acknowledged

    def deliver_to(self, on_message: Callable[[Message], None]) -> None:
        """From now on received messages go to `on_message` (what is queued first)."""
        self._on_message = on_message
        while not self._inbox.empty():
            on_message(self._inbox.get_nowait())

    async def recv(self) -> Message:
        return await self._inbox.get()

    def __aiter__(self) -> AsyncIterator[Message]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[Message]:
        while True:
            yield await self._inbox.get()

    async def wait_up(self) -> None:
        """Until the device is open and the link handshake has completed."""
        await self._up.wait()

    async def wait_delivered(self) -> None:
        """Until the device has acknowledged every message sent so far (the link idle): a
        service that leaves without it can take its last display texts with it."""
        await self._delivered.wait()

    # --- the session on an open device ---------------------------------------------------

    def _on_open(self) -> None:
        self.link.reset_handshake(self._clock())

    def _drop_connection(self) -> None:
        super()._drop_connection()
        self._up.clear()

    async def _session(self, conn: Connection) -> None:
        """Poll the link whenever it has a deadline or new input, until the device goes."""
        while not conn.lost.is_set() and not self._closing:
            self._wake.clear()
            out = self.link.poll(self._clock())
            if out:
                conn.write(out)
            self._track_state()
            delay = self.link.next_deadline() - self._clock()
            if delay <= 0:
                await asyncio.sleep(0)  # let the loop breathe between back-to-back polls
                continue
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(delay):
                    await self._wake.wait()

    def _on_bytes(self, data: bytes) -> None:
        messages = self.link.receive(data, self._clock())
        # The link's state change (e.g. up after a handshake) is heard before the messages
        # that came with it, whether they are queued or handed to `on_message`.
        self._track_state()
        for msg, acked in messages:
            if self._on_message is not None:
                self.acked_by_sender = acked
                self._on_message(msg)
            else:
                self._inbox.put_nowait(msg)
        self._wake.set()

    def _track_state(self) -> None:
        if self.link.idle:
            self._delivered.set()
        if self.link.state is LinkState.UP and self._conn is not None:
            self._up.set()
        else:
            self._up.clear()
        self._notify_state()
