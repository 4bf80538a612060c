"""The firmware's ARM build under QEMU (`-M netduinoplus2`, an STM32F405) with its three
UARTs on local sockets, and `FirmwareBoard`, which stands in for the virtual table's
Python board so that the table, its readers and its players run around the real firmware.

UARTs: USART1 the host link (TCP: what the service opens as socket://), USART2 the RFID
reader line (a Unix socket: see `QemuBoard.open_reader_line`), USART3 the panel/debug
console (TCP; firmware/core/panel_console.h). QEMU's STM32F4 has
no GPIO model, so the panel's buttons and the table's state inputs reach the board through
the console, and what the board drives (displays, LEDs, dice) is read back from it.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from controller.process.local_ports import free_local_port
from firmware_bridge.protocol import DiceRoll, DisplayText, Led, LedMode, Message, SeatButton
from firmware_bridge.protocol.messages import TableState

from .host_firmware import FIRMWARE

ELF = FIRMWARE / "build" / "arm" / "mjt-fw.elf"


def build_arm() -> Path:
    subprocess.run(["make", "-s", "-C", str(FIRMWARE), "arm"], check=True, capture_output=True)
    return ELF


READER_LINE_BUFFER = 2048
"""SO_SNDBUF of a reader line's sending end (Linux doubles it and keeps a floor of about
4.5 KB, bookkeeping included): what may wait for the board, a few of the line's chunks."""


class QemuBoard:
    """`qemu-system-arm` running the firmware; `link_url`, `reader_path`, `console_port`."""

    def __init__(self, log: Path) -> None:
        link, self.console_port = free_local_port(), free_local_port()
        self.link_url = f"socket://127.0.0.1:{link}"
        # A short directory: a Unix socket's path has room for 107 bytes.
        self._dir = Path(tempfile.mkdtemp(prefix="mjt-qemu-"))
        self.reader_path = self._dir / "usart2"
        self.log = log
        command = ["qemu-system-arm", "-M", "netduinoplus2", "-display", "none"]
        command += ["-monitor", "none", "-kernel", str(build_arm())]
        command += ["-serial", f"tcp:127.0.0.1:{link},server=on,wait=off,nodelay=on"]
        command += ["-serial", f"unix:{self.reader_path},server=on,wait=off"]
        command += ["-serial", f"tcp:127.0.0.1:{self.console_port},server=on,wait=off,nodelay=on"]
        with log.open("wb") as out:
            self.proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 20
        for family, address in (
            (socket.AF_INET, ("127.0.0.1", link)),
            (socket.AF_UNIX, str(self.reader_path)),
            (socket.AF_INET, ("127.0.0.1", self.console_port)),
        ):
            while not _accepts(family, address):
                assert self.proc.poll() is None, log.read_text()
                assert time.monotonic() < deadline, "QEMU did not open its serial sockets"
                time.sleep(0.05)

    async def open_reader_line(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        """The board's reader UART (see `open_uart`)."""
        return await open_uart(self.reader_path)

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self._dir, ignore_errors=True)


async def open_uart(path: Path) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A UART on a Unix stream socket. Such a socket charges the bytes its peer has not read
    yet to the sender's buffer, which is kept small here: what the emulated board does not
    read waits a moment, not minutes. A TCP socket stores ~110 KB on QEMU's side whatever
    the sender does (10 s of the line), and a board that reads slower than the line for a
    while then sees the table ever later, where a real UART would overrun and lose the
    bytes (docs/firmware.md)."""
    reader, writer = await asyncio.open_unix_connection(str(path))
    sock = writer.get_extra_info("socket")
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, READER_LINE_BUFFER)
    return reader, writer


def _accepts(family: socket.AddressFamily, address: tuple[str, int] | str) -> bool:
    with socket.socket(family) as s:
        try:
            s.connect(address)
        except OSError:
            return False
        return True


LINE_BAUD = 115_200  # every UART of the board (docs/firmware.md, pin map)


class SerialLine:
    """What QEMU leaves out of a UART: its rate. Bytes copied from one socket to another
    cross at a 115,200-baud line's 11,520 bytes a second (8N1), one chunk after another;
    a bare socket would carry anything at once, and its buffers would store without bound
    what a line cannot carry (the reader line's stall of docs/firmware.md).

    `drop_after` None: the sender waits for the line, as a UART's transmitter does (the
    host link: the link's window and the board's queue feel the line). A number: a sender
    more than that many seconds ahead of the line loses the chunk (readers that scan faster
    than their shared line carries: the frames that could not go out), counted in
    `dropped`; and a chunk that finds the receiving end still full is lost too (the
    receiver did not read: a UART overrun), counted in `overrun`. That end must be small
    to mean anything (`QemuBoard.open_reader_line`)."""

    def __init__(self, drop_after: float | None = None, baud: int = LINE_BAUD) -> None:
        self.drop_after = drop_after
        self.bytes_per_s = baud / 10
        self.carried = 0
        self.dropped = 0
        self.overrun = 0

    async def copy(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        loop = asyncio.get_running_loop()
        free_at = loop.time()  # when the line has sent everything it was given
        with contextlib.suppress(OSError):
            while data := await reader.read(4096):
                now = loop.time()
                if self.drop_after is not None:
                    if free_at - now > self.drop_after:
                        self.dropped += len(data)
                        continue
                    if writer.transport.get_write_buffer_size():  # the kernel's end is full
                        self.overrun += len(data)
                        continue
                free_at = max(free_at, now) + len(data) / self.bytes_per_s
                if self.drop_after is None:
                    await asyncio.sleep(free_at - now)
                writer.write(data)
                await writer.drain()
                self.carried += len(data)


class SerialLink:
    """The host link at the line's rate both ways: a local server whose connections are
    piped to the board's link UART through a SerialLine each way. `url` is what the host
    opens instead of the board's own socket."""

    def __init__(self, qemu: QemuBoard) -> None:
        self._port = int(qemu.link_url.rsplit(":", 1)[1])
        self.to_board = SerialLine()
        self.to_host = SerialLine()
        self._server: asyncio.Server | None = None
        self.url = ""

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.url = f"socket://127.0.0.1:{self._server.sockets[0].getsockname()[1]}"

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            board_reader, board_writer = await asyncio.open_connection("127.0.0.1", self._port)
        except OSError:  # the board is gone: so is the line
            writer.close()
            return
        pipes = [
            asyncio.create_task(self.to_board.copy(reader, board_writer)),
            asyncio.create_task(self.to_host.copy(board_reader, writer)),
        ]
        try:
            await asyncio.wait(pipes, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in pipes:
                task.cancel()
            await asyncio.gather(*pipes, return_exceptions=True)
            for w in (writer, board_writer):
                w.close()


BOOT_GUARD = 20.0  # a hang guard: a board that never reads its console
PROBE_EVERY = 0.5  # typed again after this long without an answer (lost before the UART was on)
CONSOLE_PROBE = "anyone?"


class _Port:
    """The part of a SimPort the virtual table uses: where the host connects."""

    def __init__(self, url: str) -> None:
        self.url = url

    async def plug(self) -> None:
        return None

    async def unplug(self) -> None:
        return None


class FirmwareBoard:
    """The virtual table's board, played by the firmware under QEMU: table state changes
    and seat buttons are typed on the board's console; the texts, LEDs and dice the host
    sends the board are read off it (the board prints a line for each)."""

    def __init__(self, qemu: QemuBoard, on_command: Callable[[Message], None] | None) -> None:
        self.port = _Port(qemu.link_url)
        self._qemu = qemu
        self._on_command = on_command
        self.dice: tuple[int, ...] | None = None
        self.texts: dict[int, str] = {}
        self.leds: dict[int, Led] = {}
        self.lines: list[str] = []
        """What the board printed, minus the lines a wait_line() took."""
        self.typed: list[str] = []
        self.lift_order: tuple[bytes, ...] = ()
        self._writer: asyncio.StreamWriter | None = None
        self._task: asyncio.Task[None] | None = None
        self._line_added = asyncio.Event()

    async def start(self) -> None:
        """Connected, and the board reads its console: see `_until_heard`."""
        reader, self._writer = await asyncio.open_connection("127.0.0.1", self._qemu.console_port)
        self._task = asyncio.get_running_loop().create_task(self._read(reader))
        await self._until_heard()

    async def _until_heard(self) -> None:
        """Until the board answers a line typed on its console. QEMU's USART drops what
        arrives before the firmware has enabled it (a UART that is off hears nothing), and
        a board just started takes a while to get there, longer on a busy machine: the
        table's first states, typed at once, were lost, and the board told the host it was
        idle while the players saw the walls up. A line it does not know is answered with
        "? LINE"; the newline before it ends whatever part of a line the board caught."""
        assert self._writer is not None
        async with asyncio.timeout(BOOT_GUARD):
            while True:
                self._writer.write(f"\n{CONSOLE_PROBE}\n".encode())
                with contextlib.suppress(TimeoutError):
                    await self.wait_line(f"? {CONSOLE_PROBE}", timeout=PROBE_EVERY)
                    return

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self._writer is not None:
            self._writer.close()

    def type(self, line: str) -> None:
        assert self._writer is not None
        self.typed.append(line)
        self._writer.write(line.encode() + b"\n")

    async def wait_line(self, prefix: str, timeout: float = 20.0) -> str:
        """The next console line (from now on... or already seen) starting with `prefix`."""
        async with asyncio.timeout(timeout):
            while True:
                for line in self.lines:
                    if line.startswith(prefix):
                        self.lines.remove(line)
                        return line
                self._line_added.clear()
                await self._line_added.wait()

    # --- what the virtual table calls -----------------------------------------------------

    def set_state(self, state: TableState, faults: tuple[int, ...] = ()) -> None:
        self.type(" ".join(["s", str(int(state)), *map(str, faults)]))

    def walls_up(self, lift_order: tuple[bytes, ...]) -> None:
        self.lift_order = lift_order  # no lift reader on this board: never reported
        self.set_state(TableState.WALLS_UP)

    def press(self, seat: int, button: SeatButton) -> None:
        self.type(f"b {seat} {int(button)}")

    # --- what the board prints --------------------------------------------------------------

    async def _read(self, reader: asyncio.StreamReader) -> None:
        while line_bytes := await reader.readline():
            line = line_bytes.decode(errors="replace").strip()
            msg: Message | None = None
            words = line.split(" ")
            if words[0] == "text" and len(words) in (2, 3):
                target, text = int(words[1]), bytes.fromhex(words[2] if len(words) == 3 else "")
                self.texts[target] = text.decode()
                msg = DisplayText(target, self.texts[target])
            elif words[0] == "dice":
                self.dice = tuple(int(w) for w in words[1:])
                msg = DiceRoll(len(self.dice))
            elif words[0] == "led" and len(words) == 6:
                led, mode, r, g, b = (int(w) for w in words[1:])
                self.leds[led] = msg = Led(led, LedMode(mode), r, g, b)
            self.lines.append(line)
            self._line_added.set()
            if msg is not None and self._on_command is not None:
                self._on_command(msg)
