"""The virtual table's end of a serial line: a pty (the host opens the slave like a device)
or a localhost TCP server (the host opens socket://127.0.0.1:PORT).

Both can be unplugged and plugged again. A pty comes back at a new /dev/pts path, so a port
keeps a stable name (a symlink, as udev makes) that follows it: in the directory it is given,
else in a private temporary one. The host never holds a bare /dev/pts path: the kernel gives
a closed pty's number to the next pty opened anywhere on the machine, and a host reopening
that path would read another process's line. Bytes written while
nobody listens, or faster than the host reads, are dropped and counted: a cable does not
store them.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pty
import tempfile
import tty
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

MAX_PENDING = 64 * 1024


class SimPort(Protocol):
    on_bytes: Callable[[bytes], None]

    @property
    def url(self) -> str:
        """What the host opens: a stable name (a pty's symlink, or a socket:// URL)."""
        ...

    @property
    def plugged(self) -> bool: ...

    async def plug(self) -> None: ...

    async def unplug(self) -> None: ...

    def write(self, data: bytes) -> None: ...


def _ignore(data: bytes) -> None:
    return None


class PtyPort:
    """A pty pair; the master is ours, the slave path is the host's device.

    We hold the slave open too, so that the master stays readable while no host has the
    device open (and the host's pyserial flushes stale input when it opens).
    """

    def __init__(self, stable_name: Path | None = None) -> None:
        self.stable_name = stable_name
        self._private = stable_name is None  # a temporary directory of our own, made at plug
        self.on_bytes: Callable[[bytes], None] = _ignore
        self.plugs = 0
        self._master = -1
        self._slave = -1
        self._path = ""
        self._out = bytearray()

    @property
    def path(self) -> str:
        """The current /dev/pts/N ('' while unplugged)."""
        return self._path

    @property
    def url(self) -> str:
        return str(self.stable_name) if self.stable_name is not None else self._path

    @property
    def plugged(self) -> bool:
        return self._master >= 0

    async def plug(self) -> None:
        if self.plugged:
            return
        self._master, self._slave = pty.openpty()
        tty.setraw(self._slave)  # no echo, no line discipline: a plain 8-bit line
        os.set_blocking(self._master, False)
        self._path = os.ttyname(self._slave)
        if self.stable_name is None:
            self.stable_name = Path(tempfile.mkdtemp(prefix="mjtable-pty-")) / "tty"
        elif self._private:
            self.stable_name.parent.mkdir(mode=0o700, exist_ok=True)
        tmp = self.stable_name.with_name(self.stable_name.name + ".new")
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        os.symlink(self._path, tmp)
        os.replace(tmp, self.stable_name)  # atomic re-point, as udev does
        asyncio.get_running_loop().add_reader(self._master, self._readable)
        self.plugs += 1

    async def unplug(self) -> None:
        if not self.plugged:
            return
        loop = asyncio.get_running_loop()
        loop.remove_reader(self._master)
        loop.remove_writer(self._master)
        if self.stable_name is not None:
            with contextlib.suppress(FileNotFoundError):
                self.stable_name.unlink()
            if self._private:
                with contextlib.suppress(OSError):
                    self.stable_name.parent.rmdir()
        os.close(self._master)
        os.close(self._slave)
        self._master = self._slave = -1
        self._path = ""
        self._out.clear()  # bytes on a yanked cable are lost

    def write(self, data: bytes) -> None:
        if not self.plugged:
            return
        if len(self._out) + len(data) > MAX_PENDING:
            return
        self._out += data
        self._flush()

    def _readable(self) -> None:
        try:
            data = os.read(self._master, 4096)
        except OSError:
            return
        if data:
            self.on_bytes(data)

    def _flush(self) -> None:
        loop = asyncio.get_running_loop()
        while self._out and self.plugged:
            try:
                n = os.write(self._master, self._out)
            except BlockingIOError:
                loop.add_writer(self._master, self._flush)
                return
            except OSError:
                self._out.clear()
                break
            del self._out[:n]
        if self.plugged:
            loop.remove_writer(self._master)


class TcpPort:
    """A localhost TCP server (the host opens socket://127.0.0.1:PORT). One host at a time:
    a new connection replaces the old one. The port number survives unplug/plug."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self.host = host
        self.port = port
        self.on_bytes: Callable[[bytes], None] = _ignore
        self.plugs = 0
        self._server: asyncio.Server | None = None
        self._writer: asyncio.StreamWriter | None = None

    @property
    def url(self) -> str:
        return f"socket://{self.host}:{self.port}"

    @property
    def plugged(self) -> bool:
        return self._server is not None

    async def plug(self) -> None:
        if self._server is not None:
            return
        self._server = await asyncio.start_server(self._serve, self.host, self.port)
        self.port = self._server.sockets[0].getsockname()[1]
        self.plugs += 1

    async def unplug(self) -> None:
        server, self._server = self._server, None
        if server is None:
            return
        server.close()
        self._drop_client()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(1.0):
                await server.wait_closed()

    def write(self, data: bytes) -> None:
        writer = self._writer
        if writer is None or writer.is_closing():
            return
        if writer.transport.get_write_buffer_size() > MAX_PENDING:
            return
        writer.write(data)

    def _drop_client(self) -> None:
        writer, self._writer = self._writer, None
        if writer is not None:
            writer.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._drop_client()
        self._writer = writer
        try:
            with contextlib.suppress(ConnectionError):
                while data := await reader.read(4096):
                    self.on_bytes(data)
        finally:
            if self._writer is writer:
                self._writer = None
            writer.close()
