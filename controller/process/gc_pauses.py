"""Keeping the garbage collector's full passes off the path from a tile to a display.

A full (generation 2) collection walks every tracked object: the engine's memo tables, the
web app, SQLAlchemy. On the development machine that is ~100 ms, at a random move. So the
service runs one itself at quiet moments (after start-up, and after each hand is settled
and published, while the table shuffles) and then freezes the survivors (``gc.freeze``):
the automatic passes during play only walk what is new since. Each quiet pass unfreezes
first, so cyclic garbage among formerly frozen objects is still collected: nothing leaks.
"""

from __future__ import annotations

import gc
import time

import structlog

log = structlog.get_logger(__name__)


def collect_and_freeze() -> float:
    """A full collection now, then freeze what survived; returns the seconds it took."""
    started = time.perf_counter()
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    took = time.perf_counter() - started
    log.debug("gc: a full pass while quiet", ms=round(took * 1e3, 1), frozen=gc.get_freeze_count())
    return took
