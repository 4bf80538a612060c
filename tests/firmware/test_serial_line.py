"""The QEMU rig's reader line (qemu_board.SerialLine over open_uart) behaves like a UART:
it carries no more than the line's rate, and what the receiver does not read is lost, not
stored. A line that stored it let the emulated board see the table ever later, and a hand
stalled now and then (CI, 2026-12-01; docs/firmware.md)."""

from __future__ import annotations

import asyncio
import socket
import tempfile
import time
from pathlib import Path

from .qemu_board import LINE_BAUD, SerialLine, open_uart

SCAN = bytes(750)  # a scan of 13 readers in mid-hand, about
OFFERED = 100  # scans, one every 20 ms: 2 s, 75 KB, ~6.5 times what the line carries


async def _offer(path: Path, received: list[int], *, reads: bool) -> tuple[SerialLine, float]:
    """The line after OFFERED scans and 0.2 s more, and the seconds that took (more than
    2.2 on a busy machine, where a sleep of 20 ms lasts longer)."""
    loop = asyncio.get_running_loop()
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        server.listen()
        server.setblocking(False)
        line = SerialLine(drop_after=0.1)
        source = asyncio.StreamReader()
        _, writer = await open_uart(path)
        board, _ = await loop.sock_accept(server)

        async def read() -> None:  # a plain socket: asyncio's streams would read ahead
            while data := await loop.sock_recv(board, 4096):
                received[0] += len(data)

        tasks = [asyncio.create_task(line.copy(source, writer))]
        if reads:
            tasks.append(asyncio.create_task(read()))
        started = time.monotonic()
        for _ in range(OFFERED):
            source.feed_data(SCAN)
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.2)
        for task in tasks:
            task.cancel()
        took = time.monotonic() - started
        writer.close()
        board.close()
    return line, took


def test_a_board_that_does_not_read_loses_the_bytes_instead_of_storing_them() -> None:
    received = [0]
    with tempfile.TemporaryDirectory(prefix="mjt-line-") as tmp:
        line, _ = asyncio.run(_offer(Path(tmp) / "uart", received, reads=False))
    assert received == [0]
    # What went into the socket is a few chunks' worth (the small send buffer), not the
    # ~23 KB the line carried in 2 s, let alone a TCP socket's ~110 KB.
    assert line.carried <= 10 * len(SCAN)
    assert line.overrun > 0
    assert line.carried + line.dropped + line.overrun == OFFERED * len(SCAN)


def test_a_board_that_reads_gets_the_line_rate() -> None:
    received = [0]
    with tempfile.TemporaryDirectory(prefix="mjt-line-") as tmp:
        line, took = asyncio.run(_offer(Path(tmp) / "uart", received, reads=True))
    assert received[0] == line.carried
    # the time it took (2.2 s on a quiet machine) at 11,520 bytes a second, plus the 0.1 s
    # the line may run ahead
    assert line.carried <= (took + 0.1) * LINE_BAUD / 10 + len(SCAN)
    assert line.carried >= len(SCAN) * 10  # it carried, and the rest was dropped
    assert line.dropped > 0
