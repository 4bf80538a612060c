"""A TCP proxy between an MQTT client and a real broker that notes the client's PUBLISH
packets and can hold the broker's PUBACKs back: what a client sends before its first
acknowledgement, and what it does when the link dies with acknowledgements outstanding,
seen without timing anything."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterator

PUBLISH, PUBACK = 3, 4


def packets(buffer: bytearray) -> Iterator[bytes]:
    """Take the complete MQTT packets off the front of ``buffer`` (fixed header: a type
    byte, then the remaining length in 7-bit groups)."""
    while True:
        length, shift, at = 0, 0, 1
        while True:
            if at >= len(buffer):
                return
            byte = buffer[at]
            length |= (byte & 0x7F) << shift
            at += 1
            if not byte & 0x80:
                break
            shift += 7
        if len(buffer) < at + length:
            return
        packet = bytes(buffer[: at + length])
        del buffer[: at + length]
        yield packet


def _topic(publish: bytes) -> str:
    at = 1
    while publish[at] & 0x80:  # the remaining length
        at += 1
    size = int.from_bytes(publish[at + 1 : at + 3], "big")
    return publish[at + 3 : at + 3 + size].decode()


class MqttProxy:
    """``await proxy.start()``; clients connect to ``proxy.url`` instead of the broker."""

    def __init__(self, broker_port: int) -> None:
        self.broker_port = broker_port
        self.published: list[str] = []  # the topic of each PUBLISH clients sent
        self._ack_budget: int | None = None  # None: pass every PUBACK
        self._more = asyncio.Event()
        self._server: asyncio.Server | None = None
        self.port = 0

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = int(self._server.sockets[0].getsockname()[1])

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()

    def hold_acks_after(self, n: int) -> None:
        """Pass ``n`` more PUBACKs, then hold the broker's packets (in order) back."""
        self._ack_budget = n

    def release(self) -> None:
        self._ack_budget = None
        self._more.set()

    async def _to_broker(self, packet: bytes) -> None:
        if packet[0] >> 4 == PUBLISH:
            self.published.append(_topic(packet))

    async def _to_client(self, packet: bytes) -> None:
        if packet[0] >> 4 != PUBACK:
            return
        while self._ack_budget == 0:
            self._more.clear()
            await self._more.wait()
        if self._ack_budget is not None:
            self._ack_budget -= 1

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.broker_port)
        except OSError:  # the broker is down: so is the connection through us
            writer.close()
            return
        pumps = [
            asyncio.create_task(_pump(reader, up_writer, self._to_broker)),
            asyncio.create_task(_pump(up_reader, writer, self._to_client)),
        ]
        await asyncio.wait(pumps, return_when=asyncio.FIRST_COMPLETED)
        for task in pumps:
            task.cancel()
        await asyncio.gather(*pumps, return_exceptions=True)
        for w in (writer, up_writer):
            w.close()
            with contextlib.suppress(OSError):
                await w.wait_closed()


async def _pump(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    each: Callable[[bytes], Awaitable[None]],
) -> None:
    buffer = bytearray()
    with contextlib.suppress(OSError):
        while data := await reader.read(65536):
            buffer += data
            for packet in packets(buffer):
                await each(packet)
                writer.write(packet)
            await writer.drain()
