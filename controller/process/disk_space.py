"""A full disk is its own fault, not an internal error: play is held, and resumes by itself.

SQLite refuses a write on a full disk (``database or disk is full``) and rolls the
transaction back: what was stored stays stored. The table then cannot keep a move, so
no new hand may start, and a hand in progress cannot go on until space returns. Before each
hand the free space of the data directory is checked against a floor (``store.min_free_mb``),
so a table that is filling up stops between hands, not in the middle of one.
"""

from __future__ import annotations

import errno
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

FULL_TEXTS = ("database or disk is full", "no space left on device")


def is_disk_full(err: BaseException | None) -> bool:
    """``err`` (or what it wraps: SQLAlchemy's ``.orig``, a cause) says the disk is full."""
    seen = 0
    while err is not None and seen < 8:
        if isinstance(err, OSError) and err.errno in (errno.ENOSPC, errno.EDQUOT):
            return True
        if isinstance(err, sqlite3.OperationalError) and any(
            t in str(err).lower() for t in FULL_TEXTS
        ):
            return True
        orig = getattr(err, "orig", None)
        err = orig if isinstance(orig, BaseException) else (err.__cause__ or err.__context__)
        seen += 1
    return False


def free_bytes(path: Path) -> int:
    """Bytes an unprivileged writer may still use on ``path``'s file system."""
    st = os.statvfs(path)
    return st.f_bavail * st.f_frsize


class DiskFloor:
    """Whether there is room for a hand: ``free()`` at least ``floor`` bytes (more after a
    refused write: see ``refuse``)."""

    def __init__(self, path: Path, floor: int, free: Callable[[], int] | None = None) -> None:
        self.path = path
        self.floor = floor
        self._free = free or (lambda: free_bytes(path))
        # Free bytes when a write was refused for lack of space (None: none since there was
        # room): that much did not suffice, so room means the floor on top of it.
        self.refused_at: int | None = None

    def free(self) -> int:
        try:
            return self._free()
        except OSError:
            return 0

    def refuse(self) -> None:
        """A write failed for lack of space."""
        if self.refused_at is None:
            self.refused_at = self.free()

    def room(self) -> bool:
        free, refused = self.free(), self.refused_at
        # More than was refused: as much again is refused again (a floor of 0 on a disk
        # with 0 bytes free would resume at once, and refuse the next write).
        if free >= self.floor + (refused or 0) and (refused is None or free > refused):
            self.refused_at = None
            return True
        return False
