"""Keeping the garbage collector's full passes off the path from a tile to a display.

A full (generation 2) collection walks every tracked object: the engine's memo tables, the
web app, SQLAlchemy. On the development machine that is ~100 ms, at a random move. So the
service runs one itself at quiet moments (after start-up, and after each hand is settled
and published, while the table shuffles) and then freezes the survivors (``gc.freeze``):
the automatic passes during play only walk what is new since. Each quiet pass unfreezes
first, so cyclic garbage among formerly frozen objects is still collected: nothing leaks.
Then glibc is asked to give the heap the pass freed back to the system (``malloc_trim``):
start-up's transient allocations otherwise stay resident (~1 MB, docs/bench-log.md).
"""

from __future__ import annotations

import ctypes
import gc
import time
from collections.abc import Callable

import structlog

log = structlog.get_logger(__name__)


def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or None where the C library has none (musl, macOS)."""
    try:
        trim: Callable[[int], int] = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None
    return trim


_TRIM = _malloc_trim()


def collect_and_freeze() -> float:
    """A full collection now, freeze what survived, give the freed heap back; returns the
    seconds it took."""
    started = time.perf_counter()
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    if _TRIM is not None:
        _TRIM(0)
    took = time.perf_counter() - started
    log.debug("gc: a full pass while quiet", ms=round(took * 1e3, 1), frozen=gc.get_freeze_count())
    return took
