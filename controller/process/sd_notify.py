"""systemd's readiness and watchdog notifications (``Type=notify``, ``WatchdogSec=``).

The NOTIFY_SOCKET datagram protocol, stdlib only: ``ready()`` once serving, then
``watchdog()`` at least every ``watchdog_interval()`` seconds while healthy, ``stopping()``
at shutdown. Outside systemd (no NOTIFY_SOCKET) every call does nothing and returns False.
"""

from __future__ import annotations

import asyncio
import os
import socket
from collections.abc import Callable, Mapping


def notify(*states: str, environ: Mapping[str, str] | None = None) -> bool:
    """Send ``READY=1``-style lines to systemd; True if there was a socket to send to."""
    address = (os.environ if environ is None else environ).get("NOTIFY_SOCKET")
    if not address:
        return False
    if address.startswith("@"):  # an abstract socket
        address = "\0" + address[1:]
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
        sock.connect(address)
        sock.sendall("\n".join(states).encode("utf-8"))
    return True


def ready(status: str = "serving") -> bool:
    return notify("READY=1", f"STATUS={status}")


def watchdog() -> bool:
    return notify("WATCHDOG=1")


def stopping() -> bool:
    return notify("STOPPING=1")


def watchdog_interval(environ: Mapping[str, str] | None = None) -> float | None:
    """Seconds between pings (half systemd's WatchdogSec), or None when no watchdog is on."""
    env = os.environ if environ is None else environ
    usec, pid = env.get("WATCHDOG_USEC"), env.get("WATCHDOG_PID")
    if not usec or not usec.isdigit() or int(usec) == 0:
        return None
    if pid and pid.isdigit() and int(pid) != os.getpid():
        return None  # meant for another process (e.g. a wrapper script)
    return int(usec) / 2_000_000


async def watchdog_loop(healthy: Callable[[], bool] = lambda: True) -> None:
    """Ping while ``healthy()``: a stuck event loop or an unhealthy service stops the pings
    and systemd restarts the service. Runs until cancelled; returns at once without a
    watchdog."""
    interval = watchdog_interval()
    if interval is None:
        return
    while True:
        if healthy():
            watchdog()
        await asyncio.sleep(interval)
