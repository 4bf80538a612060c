"""The asyncio transport against a real pty, with a peer Link on the master side.

The transport opens a udev-style stable name (a symlink) like any serial device. Unplugging
closes the pty and removes the link; replugging makes a new pty at a new /dev/pts path and
re-points the symlink. Every message queued meanwhile must arrive exactly once, in order.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pty
import random
import time
import tty
from collections.abc import Callable
from pathlib import Path

import pytest

from firmware_bridge.protocol import (
    DisplayText,
    Inventory,
    Link,
    LinkSettings,
    LinkState,
    Message,
    Role,
    Status,
    TableState,
)
from firmware_bridge.protocol.transport import LinkTransport

TIMEOUT = 30.0


class PtyBoard:
    """The table board's side: a Link on a pty master, driven by the event loop."""

    def __init__(self, link: Link) -> None:
        self.link = link
        self.got: list[Message] = []
        self.plugs = 0
        self._master = -1
        self._slave = -1
        self._out = bytearray()
        self._task: asyncio.Task[None] | None = None

    def plug(self, stable_name: Path) -> str:
        self._master, self._slave = pty.openpty()
        tty.setraw(self._slave)  # no echo, no line discipline: a plain 8-bit line
        os.set_blocking(self._master, False)
        path = os.ttyname(self._slave)
        tmp = stable_name.with_suffix(".new")
        os.symlink(path, tmp)
        os.replace(tmp, stable_name)  # atomic re-point, as udev does
        loop = asyncio.get_running_loop()
        loop.add_reader(self._master, self._readable)
        self._task = loop.create_task(self._timers())
        self.plugs += 1
        return path

    def unplug(self, stable_name: Path) -> None:
        asyncio.get_running_loop().remove_reader(self._master)
        if self._task is not None:
            self._task.cancel()
        stable_name.unlink()
        os.close(self._master)
        os.close(self._slave)
        self._master = self._slave = -1
        self._out.clear()  # bytes on a yanked cable are lost

    def send(self, msg: Message) -> None:
        self.link.send(msg, time.monotonic())
        self._flush()

    def _readable(self) -> None:
        try:
            data = os.read(self._master, 4096)
        except OSError:  # EIO while no one has the slave open
            return
        self.got += self.link.receive_bytes(data, time.monotonic())
        self._flush()

    def _flush(self) -> None:
        out = self.link.poll(time.monotonic())
        if self._master < 0:
            return  # unplugged: the board keeps running, its bytes go nowhere
        self._out += out
        while self._out:
            try:
                n = os.write(self._master, self._out)
            except BlockingIOError:
                return
            del self._out[:n]

    async def _timers(self) -> None:
        while True:
            self._flush()
            delay = self.link.next_deadline() - time.monotonic()
            await asyncio.sleep(min(max(delay, 0.001), 0.05))


async def _until(condition: Callable[[], bool]) -> None:
    while not condition():
        await asyncio.sleep(0.005)


def _pi_msg(i: int) -> Message:
    return DisplayText(target=i % 5, text=f"pi {i}")


def _board_msg(i: int) -> Message:
    if i % 3 == 0:
        return Inventory(reader=1, zone=i % 8, uids=tuple(bytes([i % 256] * 8) for _ in range(12)))
    return Status(TableState(i % 5), faults=(i,))


@pytest.mark.timeout(60)
def test_pty_round_trip_and_replug_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    async def scenario() -> None:
        stable = tmp_path / "ttyMJTABLE"  # like /dev/serial/by-id/...
        board = PtyBoard(Link(LinkSettings(role=Role.TABLE_BOARD), session=0xB0A2D))
        board.plug(stable)
        transport = LinkTransport(
            str(stable),
            Link(LinkSettings(role=Role.HOST), session=0x9191),
            backoff_initial=0.02,
            backoff_max=0.2,
        )
        got: list[Message] = []

        async def collect() -> None:
            async for msg in transport:
                got.append(msg)

        async with asyncio.timeout(TIMEOUT), transport:
            collector = asyncio.create_task(collect())
            await transport.wait_up()
            for i in range(50):
                transport.send(_pi_msg(i))
                board.send(_board_msg(i))
            await _until(lambda: len(board.got) >= 50 and len(got) >= 50)

            board.unplug(stable)
            await _until(lambda: not transport.connected)
            # Both sides keep sending while the cable is out.
            for i in range(50, 120):
                transport.send(_pi_msg(i))
                board.send(_board_msg(i))
            board.plug(stable)  # a new pty, a new /dev/pts path, the same stable name
            await _until(lambda: len(board.got) >= 120 and len(got) >= 120)
            await _until(lambda: transport.link.idle and board.link.idle)
            collector.cancel()

        assert board.plugs == 2
        assert board.got == [_pi_msg(i) for i in range(120)]
        assert got == [_board_msg(i) for i in range(120)]
        assert transport.connects == 2 and transport.disconnects >= 1
        assert transport.link.counters.peer_restarts == 0
        assert transport.link.state is LinkState.UP
        board.unplug(stable)

    asyncio.run(scenario())


@pytest.mark.timeout(60)
def test_transport_waits_for_a_device_that_is_not_there_yet(tmp_path: Path) -> None:
    async def scenario() -> None:
        stable = tmp_path / "ttyLATE"
        board = PtyBoard(Link(LinkSettings(role=Role.TABLE_BOARD), session=0x1A7E))
        received: list[Message] = []
        transport = LinkTransport(
            str(stable),
            Link(session=0x2B),
            on_message=received.append,
            backoff_initial=0.01,
            backoff_max=0.05,
        )
        async with asyncio.timeout(TIMEOUT), transport:
            transport.send(_pi_msg(0))  # queued before the device even exists
            await _until(lambda: transport.open_failures >= 3)
            board.plug(stable)
            board.send(_board_msg(1))
            await _until(lambda: len(board.got) == 1 and len(received) == 1)
        assert board.got == [_pi_msg(0)] and received == [_board_msg(1)]
        board.unplug(stable)

    asyncio.run(scenario())


@pytest.mark.timeout(60)
def test_wait_delivered_ends_once_the_board_acknowledged_every_message(tmp_path: Path) -> None:
    """What a service leaving after its last hand waits for: its last display texts on the
    board, not just written to the line."""

    async def scenario() -> None:
        stable = tmp_path / "ttyACK"
        board = PtyBoard(Link(LinkSettings(role=Role.TABLE_BOARD), session=0xAC))
        board.plug(stable)
        transport = LinkTransport(str(stable), Link(session=0x2C))
        async with asyncio.timeout(TIMEOUT), transport:
            await transport.wait_up()
            await transport.wait_delivered()  # nothing sent: nothing to wait for
            loop = asyncio.get_running_loop()
            loop.remove_reader(board._master)  # the board reads (and acks) nothing for now
            transport.send(_pi_msg(1))
            transport.send(_pi_msg(2))
            waiter = asyncio.create_task(transport.wait_delivered())
            await _until(lambda: transport.link.in_flight == 2)  # on the line, unacked
            await asyncio.sleep(0)
            assert not waiter.done()
            loop.add_reader(board._master, board._readable)
            await waiter
            assert board.got == [_pi_msg(1), _pi_msg(2)] and transport.link.idle
        board.unplug(stable)

    asyncio.run(scenario())


@pytest.mark.timeout(60)
def test_loop_url_talks_to_itself() -> None:
    async def scenario() -> None:
        async with asyncio.timeout(TIMEOUT), LinkTransport("loop://", Link()) as transport:
            transport.send(_pi_msg(7))
            assert await transport.recv() == _pi_msg(7)
            assert transport.state == "up"

    asyncio.run(scenario())


@pytest.mark.timeout(60)
def test_socket_url_reaches_a_peer_link() -> None:
    async def scenario() -> None:
        peer = Link(LinkSettings(role=Role.SIMULATOR), session=0x50C)
        peer_got: list[Message] = []

        async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            try:
                with contextlib.suppress(ConnectionError):
                    while data := await _read_or_tick(reader, peer):
                        peer_got.extend(peer.receive_bytes(data, time.monotonic()))
                        writer.write(peer.poll(time.monotonic()))
            finally:
                writer.close()

        server = await asyncio.start_server(serve, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        url = f"socket://127.0.0.1:{port}"
        async with asyncio.timeout(TIMEOUT), server, LinkTransport(url, Link()) as transport:
            transport.send(_pi_msg(3))
            await _until(lambda: peer_got == [_pi_msg(3)])

    asyncio.run(scenario())


async def _read_or_tick(reader: asyncio.StreamReader, link: Link) -> bytes:
    """Socket bytes; a bare delimiter when the link's timer is due; b"" at end of stream."""
    delay = max(0.001, link.next_deadline() - time.monotonic())
    try:
        async with asyncio.timeout(delay):
            data = await reader.read(4096)
            return data if data else b""
    except TimeoutError:
        return b"\x00"  # a bare delimiter is idle fill; it just gives poll() a turn


def test_backoff_is_exponential_capped_and_jittered() -> None:
    transport = LinkTransport("loop://", backoff_initial=0.1, backoff_max=2.0, rng=random.Random(1))
    for attempt in range(12):
        full = min(2.0, 0.1 * 2**attempt)
        delays = {transport.backoff_delay(attempt) for _ in range(20)}
        assert all(full / 2 <= d <= full for d in delays)
        assert len(delays) > 1  # jitter: reconnect storms from many tables spread out
