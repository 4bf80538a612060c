"""Asyncio shell around Link: opens a pyserial URL, pumps bytes and time, reconnects.

All protocol logic is in the sans-IO Link; this file only moves bytes, reads the clock,
and reopens the device with exponential backoff (jittered, capped) when it disappears.
Messages sent while the device is away wait in the Link and go out after the re-hello.

URLs: a device path (/dev/ttyUSB0, /dev/serial/by-id/..., /dev/pts/N), socket://host:port
(both via pyserial-asyncio-fast), and loop:// (via a small polling adapter, since pyserial's
loop handler has no file descriptor to wait on).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
import urllib.parse
from collections.abc import AsyncIterator, Callable
from typing import Any, Protocol

import serial  # type: ignore[import-untyped]
import serial_asyncio_fast

from .link import Link, LinkState
from .messages import Message

log = logging.getLogger(__name__)

_POLLED_SCHEMES = frozenset({"loop"})
_POLL_INTERVAL = 0.005
_OPEN_ERRORS = (serial.SerialException, OSError, ValueError)


class _Connection(Protocol):
    lost: asyncio.Event

    def write(self, data: bytes) -> None: ...

    def close(self) -> None: ...


class _StreamProtocol(asyncio.Protocol):
    """pyserial-asyncio-fast protocol: forwards bytes and loss to the transport."""

    def __init__(self, on_bytes: Callable[[bytes], None], on_lost: Callable[[], None]) -> None:
        self._on_bytes = on_bytes
        self._on_lost = on_lost
        self.lost = asyncio.Event()
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self._on_bytes(data)

    def connection_lost(self, exc: Exception | None) -> None:
        if exc is not None:
            log.info("serial connection lost: %s", exc)
        self.lost.set()
        self._on_lost()

    def write(self, data: bytes) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(data)

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()


class _PolledConnection:
    """For URL handlers without a file descriptor (loop://): poll in_waiting."""

    def __init__(
        self, port: Any, on_bytes: Callable[[bytes], None], on_lost: Callable[[], None]
    ) -> None:
        self._port = port
        self._on_bytes = on_bytes
        self._on_lost = on_lost
        self.lost = asyncio.Event()
        self._task = asyncio.get_running_loop().create_task(self._read_loop())

    async def _read_loop(self) -> None:
        try:
            while True:
                waiting = self._port.in_waiting
                if waiting:
                    self._on_bytes(self._port.read(waiting))
                await asyncio.sleep(_POLL_INTERVAL)
        except _OPEN_ERRORS as exc:
            log.info("serial connection lost: %s", exc)
        finally:
            self.lost.set()
            self._on_lost()

    def write(self, data: bytes) -> None:
        try:
            self._port.write(data)
        except _OPEN_ERRORS as exc:
            log.info("serial write failed: %s", exc)
            self.close()

    def close(self) -> None:
        self._task.cancel()
        with contextlib.suppress(*_OPEN_ERRORS):
            self._port.close()
        self.lost.set()


class LinkTransport:
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
        self.url = url
        self.link = link or Link()
        self.baudrate = baudrate
        self._on_message = on_message
        self._backoff_initial = backoff_initial
        self._backoff_max = backoff_max
        self._clock = clock
        self._rng = rng or random.Random()
        self._serial_options = serial_options or {}
        self._inbox: asyncio.Queue[Message] = asyncio.Queue()
        self._wake = asyncio.Event()
        self._up = asyncio.Event()
        self._closing = False
        self._conn: _Connection | None = None
        self._task: asyncio.Task[None] | None = None
        self.connects = 0
        self.disconnects = 0
        self.open_failures = 0

    # --- public API --------------------------------------------------------------------

    async def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def close(self) -> None:
        self._closing = True
        self._wake.set()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        self._drop_connection()

    async def __aenter__(self) -> LinkTransport:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    @property
    def connected(self) -> bool:
        return self._conn is not None

    @property
    def state(self) -> str:
        """'disconnected' while the device is away, else the link state."""
        return self.link.state.value if self.connected else "disconnected"

    def send(self, msg: Message) -> None:
        """Queue a message (raises LinkQueueFull). Sent once the link is up, even if later."""
        self.link.send(msg, self._clock())
        self._wake.set()

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

    # --- connection management ------------------------------------------------------------

    def backoff_delay(self, attempt: int) -> float:
        """Exponential, capped, with 'equal jitter': half fixed, half random."""
        delay = min(self._backoff_max, self._backoff_initial * 2.0 ** min(attempt, 32))
        return delay / 2 + self._rng.uniform(0, delay / 2)

    async def _run(self) -> None:
        attempt = 0
        while not self._closing:
            try:
                conn = await self._open()
            except _OPEN_ERRORS as exc:
                self.open_failures += 1
                delay = self.backoff_delay(attempt)
                attempt += 1
                log.debug("cannot open %s (%s); retry in %.2fs", self.url, exc, delay)
                await asyncio.sleep(delay)
                continue
            attempt = 0
            self.connects += 1
            self._conn = conn
            log.info("opened %s", self.url)
            self.link.reset_handshake(self._clock())
            try:
                await self._pump(conn)
            finally:
                self._drop_connection()
                self.disconnects += 1

    async def _open(self) -> _Connection:
        scheme = urllib.parse.urlparse(self.url).scheme
        if scheme in _POLLED_SCHEMES:
            loop = asyncio.get_running_loop()
            port = await loop.run_in_executor(
                None,
                lambda: serial.serial_for_url(
                    self.url, baudrate=self.baudrate, timeout=0, **self._serial_options
                ),
            )
            return _PolledConnection(port, self._on_bytes, self._wake.set)
        protocol = _StreamProtocol(self._on_bytes, self._wake.set)
        await serial_asyncio_fast.create_serial_connection(
            asyncio.get_running_loop(),
            lambda: protocol,
            self.url,
            baudrate=self.baudrate,
            **self._serial_options,
        )
        return protocol

    def _drop_connection(self) -> None:
        conn, self._conn = self._conn, None
        self._up.clear()
        if conn is not None:
            conn.close()

    async def _pump(self, conn: _Connection) -> None:
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
        for msg in self.link.receive_bytes(data, self._clock()):
            if self._on_message is not None:
                self._on_message(msg)
            else:
                self._inbox.put_nowait(msg)
        self._track_state()
        self._wake.set()

    def _track_state(self) -> None:
        if self.link.state is LinkState.UP and self._conn is not None:
            self._up.set()
        else:
            self._up.clear()
