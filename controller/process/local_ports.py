"""Free localhost ports for a server that is bound *later*, by another process or
listener (the demo's WebSocket listener, the brokers, web servers and boards of tests
and benches).

Between the choice and the bind, a port from the kernel's ephemeral range (what binding
port 0 hands out) can become the source port of any outgoing connection on the machine.
Then the server cannot bind it, and a client probing for the server can even connect to
itself. Connections never take ports outside that range, so we choose from there.
Nor is a port handed out twice in a row by this process: a test that asks for a broker's
port and then its WebSocket port must get two.
"""

from __future__ import annotations

import random
import socket
from collections import deque
from pathlib import Path

EPHEMERAL_RANGE_FILE = Path("/proc/sys/net/ipv4/ip_local_port_range")
LINUX_DEFAULT_RANGE = (32768, 60999)
FIRST_UNPRIVILEGED = 1024
ATTEMPTS = 500  # random picks before giving up: thousands of ports are free on any machine

_pick = random.SystemRandom()  # not the random module's state, which tests seed
_handed_out: deque[int] = deque(maxlen=256)  # not bound yet, maybe: not free for another


def ephemeral_range() -> tuple[int, int]:
    """The kernel's range for outgoing connections' source ports (inclusive)."""
    try:
        low, high = (int(part) for part in EPHEMERAL_RANGE_FILE.read_text().split())
    except (OSError, ValueError):
        return LINUX_DEFAULT_RANGE
    return low, high


def port_free(port: int, host: str = "127.0.0.1") -> bool:
    """Nothing is bound to ``port`` on ``host`` (nor on every address) just now."""
    with socket.socket() as s:
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True


def free_local_port(host: str = "127.0.0.1") -> int:
    """A port free on ``host`` now, outside the ephemeral range, and none of the last
    256 this process handed out (their servers may not have bound them yet)."""
    low, high = ephemeral_range()
    outside = [r for r in (range(FIRST_UNPRIVILEGED, low), range(high + 1, 65536)) if r]
    if outside:
        for _ in range(ATTEMPTS):
            span = _pick.choices(outside, weights=[len(r) for r in outside])[0]
            port = _pick.choice(span)
            if port not in _handed_out and port_free(port, host):
                _handed_out.append(port)
                return port
    # A range that leaves nothing outside it, or nothing free there: the kernel's choice.
    with socket.socket() as s:
        s.bind((host, 0))
        port = int(s.getsockname()[1])
    _handed_out.append(port)
    return port
