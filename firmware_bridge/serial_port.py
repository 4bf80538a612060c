"""Open a pyserial URL under asyncio and reopen it whenever it goes: the shell every device
transport shares (the table-board link, the RFID readers).

URLs: a device path (/dev/ttyUSB0, /dev/serial/by-id/..., /dev/pts/N), socket://host:port
(both via pyserial-asyncio-fast), and loop:// (via a small polling adapter, since pyserial's
loop handler has no file descriptor to wait on).

When the device disappears (read/write error, EIO on a hung-up pty, USB unplug) the port is
closed and the URL reopened with exponential backoff, min(cap, initial·2^attempt), with
"equal jitter" (half fixed, half random) so that a parlour's tables do not retry in lock step.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import urllib.parse
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, Protocol, Self

import serial  # type: ignore[import-untyped]
import serial_asyncio_fast

log = logging.getLogger(__name__)

_POLLED_SCHEMES = frozenset({"loop"})
_POLL_INTERVAL = 0.005
OPEN_ERRORS = (serial.SerialException, OSError, ValueError)

CONNECTED = "connected"
DISCONNECTED = "disconnected"


class Connection(Protocol):
    lost: asyncio.Event

    def write(self, data: bytes) -> None: ...

    def close(self) -> None: ...


class _StreamProtocol(asyncio.Protocol):
    """pyserial-asyncio-fast protocol: forwards bytes and loss to the owner."""

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


class _DirectReadTransport(serial_asyncio_fast.SerialTransport):
    """pyserial-asyncio-fast's transport for a device path, reading the descriptor itself.

    The event loop has just said the device is readable, yet pyserial's ``read()`` would
    select() on it (and on its abort pipe) again and build a Timeout and a bytearray: two
    system calls a reader frame, 650 frames a second on an idle table. Errors end the
    connection as they did there: EIO of a hung-up pty, and a readable device that returns
    nothing. It replaces only the library's ``_read_ready``; should a release rename it,
    reads fall back to pyserial's, which tests/firmware_bridge/rfid/test_rfid_transport.py
    (an idle zone...) would catch.
    """

    _empty_reads = 0

    def _read_ready(self) -> None:
        try:
            data = os.read(self._serial.fd, self._max_read_size)
        except (BlockingIOError, InterruptedError):
            return
        except OSError as exc:
            self._close(exc=serial.SerialException(f"read failed: {exc}"))
            return
        if not data:
            # pyserial leaves a tty at VMIN=0: a read with no byte ready returns nothing
            # rather than EAGAIN, so one empty read after a readiness is no hang-up (a
            # loaded machine's board pty read so and its hand never started). A hung-up
            # device stays readable and empty: the next read says so.
            self._empty_reads += 1
            if self._empty_reads > 1:
                self._close(exc=serial.SerialException("device readable but returned no data"))
            return
        self._empty_reads = 0
        self._protocol.data_received(data)


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
        except OPEN_ERRORS as exc:
            log.info("serial connection lost: %s", exc)
        finally:
            self.lost.set()
            self._on_lost()

    def write(self, data: bytes) -> None:
        try:
            self._port.write(data)
        except OPEN_ERRORS as exc:
            log.info("serial write failed: %s", exc)
            self.close()

    def close(self) -> None:
        self._task.cancel()
        with contextlib.suppress(*OPEN_ERRORS):
            self._port.close()
        self.lost.set()


async def open_connection(
    url: str,
    *,
    baudrate: int,
    on_bytes: Callable[[bytes], None],
    on_lost: Callable[[], None],
    serial_options: dict[str, Any] | None = None,
) -> Connection:
    """Open `url`; raises one of OPEN_ERRORS when the device is not there."""
    options = serial_options or {}
    if urllib.parse.urlparse(url).scheme in _POLLED_SCHEMES:
        loop = asyncio.get_running_loop()
        port = await loop.run_in_executor(
            None,
            lambda: serial.serial_for_url(url, baudrate=baudrate, timeout=0, **options),
        )
        return _PolledConnection(port, on_bytes, on_lost)
    protocol = _StreamProtocol(on_bytes, on_lost)
    loop = asyncio.get_running_loop()
    if urllib.parse.urlparse(url).scheme:  # socket://... : the library's own transport
        await serial_asyncio_fast.create_serial_connection(
            loop, lambda: protocol, url, baudrate=baudrate, **options
        )
        return protocol
    port = await loop.run_in_executor(
        None, lambda: serial.serial_for_url(url, baudrate=baudrate, **options)
    )
    _DirectReadTransport(loop, protocol, port)
    return protocol


class ReconnectingPort(ABC):
    """Keeps the device at `url` open and runs `_session` on each connection until close().

    Subclasses receive bytes in `_on_bytes`, do their work in `_session` (which returns when
    the connection is lost) and name their state in `state`; listeners added with
    `add_state_listener` hear every change of `state`.
    """

    def __init__(
        self,
        url: str,
        *,
        baudrate: int = 115_200,
        backoff_initial: float = 0.1,
        backoff_max: float = 5.0,
        rng: random.Random | None = None,
        serial_options: dict[str, Any] | None = None,
    ) -> None:
        self.url = url
        self.baudrate = baudrate
        self._backoff_initial = backoff_initial
        self._backoff_max = backoff_max
        self._rng = rng or random.Random()
        self._serial_options = serial_options or {}
        self._wake = asyncio.Event()
        self._closing = False
        self._conn: Connection | None = None
        self._task: asyncio.Task[None] | None = None
        self._state_listeners: list[Callable[[str], None]] = []
        self._last_state = DISCONNECTED
        self.connects = 0
        self.disconnects = 0
        self.open_failures = 0

    # --- subclass interface ---------------------------------------------------------------

    @abstractmethod
    def _on_bytes(self, data: bytes) -> None:
        """Bytes from the device."""

    @abstractmethod
    async def _session(self, conn: Connection) -> None:
        """Work on an open connection; return once `conn.lost` is set or closing."""

    def _on_open(self) -> None:
        """The device was (re)opened; called before the state listeners hear of it."""
        return None

    @property
    def state(self) -> str:
        return CONNECTED if self.connected else DISCONNECTED

    # --- public API -------------------------------------------------------------------------

    async def start(self) -> None:
        if self._task is None:
            self._closing = False
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
        self._notify_state()

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    @property
    def connected(self) -> bool:
        return self._conn is not None

    def add_state_listener(self, listener: Callable[[str], None]) -> None:
        """`listener(state)` on every change of `state` (called from the event loop)."""
        self._state_listeners.append(listener)

    def backoff_delay(self, attempt: int) -> float:
        """Exponential, capped, with 'equal jitter': half fixed, half random."""
        delay = min(self._backoff_max, self._backoff_initial * 2.0 ** min(attempt, 32))
        return delay / 2 + self._rng.uniform(0, delay / 2)

    # --- the reconnect loop -----------------------------------------------------------------

    def _notify_state(self) -> None:
        state = self.state
        if state == self._last_state:
            return
        self._last_state = state
        for listener in self._state_listeners:
            listener(state)

    async def _run(self) -> None:
        attempt = 0
        while not self._closing:
            try:
                conn = await open_connection(
                    self.url,
                    baudrate=self.baudrate,
                    on_bytes=self._on_bytes,
                    on_lost=self._wake.set,
                    serial_options=self._serial_options,
                )
            except OPEN_ERRORS as exc:
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
            self._on_open()
            self._notify_state()
            try:
                await self._session(conn)
            finally:
                self._drop_connection()
                self.disconnects += 1
                self._notify_state()

    def _drop_connection(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()
