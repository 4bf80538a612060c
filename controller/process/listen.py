"""A web server's listening socket (the table's and the hub's), bound before uvicorn starts.

Left to bind it, uvicorn logs a taken port and raises SystemExit inside its task, while the
rest of the process (the table loop, the hub's ingest) runs on without a web app and, under
systemd, without ever saying READY. Bound here, a port another process holds is a clear
error the caller turns into a non-zero exit at once.
"""

from __future__ import annotations

import socket


class ListenError(Exception):
    """The address cannot be listened on (taken, not ours, bad host)."""


def listen(host: str, port: int) -> socket.socket:
    """A TCP socket listening on ``host:port`` (``0``: any free port)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        return socket.create_server((host, port), family=family, backlog=2048)
    except (OSError, OverflowError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        raise ListenError(f"cannot listen on {host}:{port}: {reason}") from None
