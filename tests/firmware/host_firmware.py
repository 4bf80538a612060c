"""The firmware's host build (firmware/build/host/mjt-host) as a process on a pty, and a
real-time pump that joins it to a Python `Link` through the lossy channel of the link tests.

The pty carries the board's UART; damage (corruption, drops, duplicates) is applied by
`LossyChannel` in both directions, and bytes reach the firmware one write per byte.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import time
import tty
from collections.abc import Callable
from pathlib import Path
from typing import Any

from firmware_bridge.protocol import Link, Message

from ..firmware_bridge.lossy_channel import LossyChannel

ROOT = Path(__file__).resolve().parents[2]
FIRMWARE = ROOT / "firmware"
HOST_BINARY = FIRMWARE / "build" / "host" / "mjt-host"


def build_host() -> Path:
    """`make -C firmware host` (a no-op when up to date): the tests never run a stale build."""
    subprocess.run(["make", "-s", "-C", str(FIRMWARE), "host"], check=True)
    return HOST_BINARY


class HostFirmware:
    """The firmware process on the slave end of a fresh pty; `master` is the Pi's end."""

    def __init__(self, *args: str, stdin: int | None = None) -> None:
        self.master, slave = os.openpty()
        tty.setraw(slave)
        os.set_blocking(self.master, False)
        path = os.ttyname(slave)
        self.proc = subprocess.Popen(
            [str(build_host()), *args, path],
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        # The child opens the slave by name; our descriptor keeps the pty alive meanwhile.
        self._slave = slave

    def read(self) -> bytes:
        try:
            return os.read(self.master, 65536)
        except (BlockingIOError, OSError):
            return b""

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(self.master, view) :]
            except BlockingIOError:
                select.select([], [self.master], [], 0.01)

    def stop(self) -> dict[str, Any]:
        """SIGTERM; the firmware prints its link counters as a JSON line on stderr."""
        self.proc.send_signal(signal.SIGTERM)
        _, err = self.proc.communicate(timeout=10)
        os.close(self.master)
        os.close(self._slave)
        assert self.proc.returncode == 0, err.decode(errors="replace")
        counters: dict[str, Any] = json.loads(err.decode().strip().splitlines()[-1])
        return counters


def pump(
    link: Link,
    fw: HostFirmware,
    to_fw: LossyChannel,
    from_fw: LossyChannel,
    done: Callable[[list[Message], float], bool],
    *,
    limit: float,
) -> list[Message]:
    """Run `link` against the firmware in real time until `done(got, now)`; returns what the
    link delivered. Fails if the firmware exits or `limit` seconds pass."""
    got: list[Message] = []
    start = time.monotonic()
    while True:
        now = time.monotonic()
        if done(got, now):
            return got
        assert now - start < limit, "the link did not finish in time"
        assert fw.proc.poll() is None, fw.proc.stderr.read() if fw.proc.stderr else b""
        from_fw.write(fw.read(), now)
        for byte in from_fw.due(now):
            got += link.receive_bytes(byte, now)
        if link.next_deadline() <= now:
            to_fw.write(link.poll(now), now)
        for byte in to_fw.due(now):
            fw.write(byte)
        times = [link.next_deadline(), now + 0.002]
        times += [t for t in (to_fw.next_time(), from_fw.next_time()) if t is not None]
        wait = max(0.0, min(times) - time.monotonic())
        select.select([fw.master], [], [], wait)
