"""The signals that stop a long-running command (``mjtable run``, ``demo``, ``hub``,
``sim-table``): SIGINT (Ctrl-C) and SIGTERM (systemd, a test harness). Each sets the
command's stop, so it closes as cleanly on one as on the other. Being handlers of our own,
they also stop a command started with SIGINT ignored, as a script's background jobs are:
Python then leaves Ctrl-C ignored, and a command relying on KeyboardInterrupt ran on."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def stop_on_signals(stop: Callable[[], object]) -> None:
    """Call ``stop`` on SIGINT or SIGTERM. Where the running loop cannot take signals (not
    the main thread, as when tests run a command in a worker thread; Windows), nothing is
    set: whoever runs the command stops it."""
    loop = asyncio.get_running_loop()
    with contextlib.suppress(NotImplementedError, RuntimeError):
        for sig in STOP_SIGNALS:
            loop.add_signal_handler(sig, stop)
