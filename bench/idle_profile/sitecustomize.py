"""Put on the service's path by bench/latency.py when MJTABLE_BENCH_PROFILE_IDLE=FILE is
set: SIGUSR1 starts a cProfile of the service's main thread (the event loop), SIGUSR2
stops it and writes the stats to FILE. The bench sends them around its idle phase, so the
profile holds the idle table only (no start-up, no hands)."""

from __future__ import annotations

import cProfile
import os
import signal

_profile = cProfile.Profile()


def _start(_signum: int, _frame: object) -> None:
    _profile.enable()


def _stop(_signum: int, _frame: object) -> None:
    _profile.disable()
    _profile.dump_stats(os.environ["MJTABLE_BENCH_PROFILE_IDLE"])


signal.signal(signal.SIGUSR1, _start)
signal.signal(signal.SIGUSR2, _stop)
